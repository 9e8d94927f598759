import { bigint, boolean, index, integer, pgSchema, text, timestamp } from "drizzle-orm/pg-core";

export const board = pgSchema("board");

/** Every snapshot received, once: the content hash makes a redelivery a no-op. */
export const snapshots = board.table(
  "snapshots",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    hash: text("hash").notNull().unique(),
    asofDaily: text("asof_daily").notNull(),
    computedAt: timestamp("computed_at", { withTimezone: true }).notNull(),
    intraday: boolean("intraday").notNull(),
    streamSeq: bigint("stream_seq", { mode: "number" }),
    body: text("body").notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("snapshots_asof_computed").on(t.asofDaily, t.computedAt)],
);
