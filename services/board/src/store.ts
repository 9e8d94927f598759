import { createHash } from "node:crypto";
import type { Database } from "@board/service-kit";
import { Snapshot, type BoardContent } from "@board/proto";
import { count, desc, lt, max, eq } from "drizzle-orm";
import { snapshots } from "./db/schema.js";

export interface StoredSnapshot {
  hash: string;
  board: BoardContent;
  snapshot: Snapshot;
}

/** Content hash of a snapshot as published (the scanner's JSON is deterministic). */
export const snapshotHash = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The board's own record of every snapshot it has received. */
export class SnapshotStore {
  constructor(private readonly db: Database<{ snapshots: typeof snapshots }>) {}

  /** Stores a snapshot once; a redelivered snapshot changes nothing. True when it was new. */
  async save(snapshot: Snapshot, body: string, hash: string, streamSeq: number | null): Promise<boolean> {
    const rows = await this.db
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
    return rows.length > 0;
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
