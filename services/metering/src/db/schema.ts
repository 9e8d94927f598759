import { bigint, date, index, integer, pgSchema, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

export const metering = pgSchema("metering");

/**
 * The free tier's daily count: one row per principal and UTC day, so concurrent reads of
 * different clients never contend on a shared row, and the cap is enforced by one
 * conditional upsert on this row. `granted`: how many reads the row's last count granted,
 * written by the same statement so it can answer a batch of reads without reading the row first.
 */
export const daily = metering.table(
  "daily",
  {
    principal: text("principal").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    used: integer("used").notNull(),
    granted: integer("granted").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.principal, t.day] }), index("daily_day").on(t.day)],
);

/** Reads served per route since the service first ran, folded in from the served-reads stream in batches. */
export const readsServed = metering.table("reads_served", {
  route: text("route").primaryKey(),
  count: bigint("count", { mode: "number" }).notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * How far into the served-reads stream the counts go: every message up to `last_seq` of the
 * stream created at `stream_created` is counted. Advanced in the same transaction as the
 * counts, so a message read twice is never counted twice.
 */
export const consumerPosition = metering.table("consumer_position", {
  consumer: text("consumer").primaryKey(),
  streamCreated: text("stream_created").notNull(),
  lastSeq: bigint("last_seq", { mode: "number" }).notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * New credentials per client address (proto NewCredentialRequest): one row per free key issued
 * or wallet signed in, kept for the window they count in. `owner`: the wallet, or a fresh id
 * for each free key (every key issued counts).
 */
export const newCredentials = metering.table(
  "new_credentials",
  {
    kind: text("kind").notNull(),
    client: text("client").notNull(),
    owner: text("owner").notNull(),
    countedAt: timestamp("counted_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.client, t.owner] }), index("new_credentials_counted_at").on(t.countedAt)],
);
