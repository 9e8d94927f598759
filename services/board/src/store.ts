import { createHash } from "node:crypto";
import type { Database } from "@board/service-kit";
import { Snapshot, type BoardContent } from "@board/proto";
import type * as schema from "./db/schema.js";
import { asc, count, desc, eq, lt, max, sql } from "drizzle-orm";
import { commitments, dailyMarks, snapshots } from "./db/schema.js";
import { appendCommitment } from "./proof/chain.js";
import { marksOf, type DailyMarks } from "./proof/marks.js";
import { recordHistory, type HistoryRetention } from "./history/record.js";

export interface StoredSnapshot {
  hash: string;
  board: BoardContent;
  snapshot: Snapshot;
}

/** Content hash of a snapshot as published (the scanner's JSON is deterministic). */
export const snapshotHash = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The board's own record of every snapshot it has received. */
export class SnapshotStore {
  /** `now` stamps commitments: a test may run the market's clock ahead of the wall clock. */
  constructor(
    private readonly db: Database<typeof schema>,
    private readonly now: () => Date = () => new Date(),
    private readonly retention: HistoryRetention = { sessions: 500, changeSessions: 10 },
  ) {}

  /**
   * Stores a snapshot once, commits it to the proof chain and records its day's marks and its
   * history (history/record.ts), in one transaction: a board is never served without its
   * commitment, nor committed without its history. A redelivered snapshot changes nothing.
   * True when it was new.
   */
  async save(snapshot: Snapshot, body: string, hash: string, streamSeq: number | null): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await tx
        .insert(snapshots)
        .values({
          hash,
          asofDaily: snapshot.board.asof_daily,
          computedAt: new Date(snapshot.board.computed_at),
          intraday: snapshot.board.intraday,
          streamSeq,
          body,
        })
        .onConflictDoNothing({ target: snapshots.hash })
        .returning({ id: snapshots.id });
      if (rows.length === 0) return false;
      const committedAt = this.now();
      const commit = await appendCommitment(tx, hash, snapshot.board, committedAt);
      const computedAt = new Date(snapshot.board.computed_at);
      // A day's marks are its latest board; an older board arriving late does not replace them.
      await tx
        .insert(dailyMarks)
        .values({ asofDaily: snapshot.board.asof_daily, snapshotHash: hash, computedAt, committedAt, marks: marksOf(snapshot.board) })
        .onConflictDoUpdate({
          target: dailyMarks.asofDaily,
          set: { snapshotHash: hash, computedAt, committedAt, marks: marksOf(snapshot.board) },
          setWhere: sql`${dailyMarks.computedAt} < ${computedAt}`,
        });
      if (commit) await recordHistory(tx, { ...commit, snapshotHash: hash }, snapshot.board, this.retention);
      return true;
    });
  }

  /** The newest commitments, newest first, and how many there are. */
  async commitments(limit: number) {
    const rows = await this.db.select().from(commitments).orderBy(desc(commitments.seq)).limit(limit);
    const [total] = await this.db.select({ n: count() }).from(commitments);
    return { total: total?.n ?? 0, rows };
  }

  /** A page of the proof chain: up to `limit` commitments with a seq below `before`, newest first, and how many there are in all. */
  async commitmentsBefore(before: number, limit: number) {
    const rows = await this.db.select().from(commitments).where(lt(commitments.seq, before)).orderBy(desc(commitments.seq)).limit(limit);
    const [total] = await this.db.select({ n: count() }).from(commitments);
    return { total: total?.n ?? 0, rows };
  }

  async commitmentOf(snapshotHash: string) {
    const [row] = await this.db.select().from(commitments).where(eq(commitments.snapshotHash, snapshotHash)).limit(1);
    return row ?? null;
  }

  /** Every day's marks, oldest first. */
  async dailyMarks(): Promise<{ asofDaily: string; computedAt: Date; committedAt: Date; marks: DailyMarks }[]> {
    const rows = await this.db.select().from(dailyMarks).orderBy(asc(dailyMarks.asofDaily));
    return rows.map((r) => ({ asofDaily: r.asofDaily, computedAt: r.computedAt, committedAt: r.committedAt, marks: r.marks as DailyMarks }));
  }

  async latest(): Promise<StoredSnapshot | null> {
    const [row] = await this.db.select().from(snapshots).orderBy(desc(snapshots.computedAt), desc(snapshots.id)).limit(1);
    return row ? parse(row.hash, row.body) : null;
  }

  /** The latest board of a trading day before `asofDaily`. */
  async latestBefore(asofDaily: string): Promise<StoredSnapshot | null> {
    const [row] = await this.db
      .select()
      .from(snapshots)
      .where(lt(snapshots.asofDaily, asofDaily))
      .orderBy(desc(snapshots.asofDaily), desc(snapshots.computedAt), desc(snapshots.id))
      .limit(1);
    return row ? parse(row.hash, row.body) : null;
  }

  async byHash(hash: string): Promise<StoredSnapshot | null> {
    const [row] = await this.db.select().from(snapshots).where(eq(snapshots.hash, hash)).limit(1);
    return row ? parse(row.hash, row.body) : null;
  }

  async count(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(snapshots);
    return row?.n ?? 0;
  }

  /** The highest stream sequence stored: consumption resumes after it. */
  async lastStreamSeq(): Promise<number> {
    const [row] = await this.db.select({ seq: max(snapshots.streamSeq) }).from(snapshots);
    return row?.seq ?? 0;
  }
}

function parse(hash: string, body: string): StoredSnapshot {
  const snapshot = Snapshot.parse(JSON.parse(body));
  return { hash, board: snapshot.board, snapshot };
}
