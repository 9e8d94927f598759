import { bigint, boolean, index, integer, jsonb, pgSchema, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

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

/**
 * Per session and name, that session's latest committed record: what /api/board/name/history
 * serves. Written with the commitment (store.ts), so history never re-reads snapshots.
 */
export const nameSessions = board.table(
  "name_sessions",
  {
    sym: text("sym").notNull(),
    asofDaily: text("asof_daily").notNull(),
    computedAt: timestamp("computed_at", { withTimezone: true }).notNull(),
    seq: integer("seq").notNull(),
    /** [state, light, trigger, opp_score, opp_pct, entry_q, hold_q, hold_label, price]: compact, 565 rows a session. */
    record: jsonb("record").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sym, t.asofDaily] }), index("name_sessions_asof").on(t.asofDaily)],
);

/** Each change of a book's regime verdict between consecutive committed boards: /api/board/regime/history. */
export const verdictChanges = board.table(
  "verdict_changes",
  {
    seq: integer("seq").notNull(),
    book: text("book").notNull(),
    asofDaily: text("asof_daily").notNull(),
    computedAt: timestamp("computed_at", { withTimezone: true }).notNull(),
    fromVerdict: text("from_verdict").notNull(),
    toVerdict: text("to_verdict").notNull(),
    /** The breadth and index figures of the board that made the change. */
    figures: jsonb("figures").notNull(),
  },
  (t) => [primaryKey({ columns: [t.seq, t.book] }), index("verdict_changes_book_asof").on(t.book, t.asofDaily)],
);

/**
 * Per committed board, what /api/board/changes compares: verdicts, lane members, states and
 * firing names (ChangeBasis, history/basis.ts). Kept for CHANGES_RETENTION_SESSIONS sessions.
 */
export const changeBases = board.table(
  "change_bases",
  {
    seq: integer("seq").primaryKey(),
    contentHash: text("content_hash").notNull().unique(),
    snapshotHash: text("snapshot_hash").notNull().unique(),
    asofDaily: text("asof_daily").notNull(),
    computedAt: timestamp("computed_at", { withTimezone: true }).notNull(),
    basis: jsonb("basis").notNull(),
  },
  (t) => [index("change_bases_asof").on(t.asofDaily)],
);
