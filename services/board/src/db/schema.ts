import { bigint, boolean, index, integer, jsonb, pgSchema, text, timestamp } from "drizzle-orm/pg-core";

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

/**
 * The proof chain: one commitment per snapshot, in the order the board received them.
 * Append-only: a trigger refuses UPDATE and DELETE (drizzle/0002_proof_append_only.sql).
 */
export const commitments = board.table("commitments", {
  seq: integer("seq").primaryKey(),
  snapshotHash: text("snapshot_hash").notNull().unique(),
  contentHash: text("content_hash").notNull(),
  previous: text("previous").notNull(),
  commitment: text("commitment").notNull().unique(),
  asofDaily: text("asof_daily").notNull(),
  computedAt: timestamp("computed_at", { withTimezone: true }).notNull(),
  intraday: boolean("intraday").notNull(),
  committedAt: timestamp("committed_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Per trading day, the marks of that day's latest board: what the audit and performance measure from. */
export const dailyMarks = board.table("daily_marks", {
  asofDaily: text("asof_daily").primaryKey(),
  snapshotHash: text("snapshot_hash").notNull(),
  computedAt: timestamp("computed_at", { withTimezone: true }).notNull(),
  committedAt: timestamp("committed_at", { withTimezone: true }).notNull(),
  marks: jsonb("marks").notNull(),
});
