import type { Database } from "@board/service-kit";
import { eq, sql } from "drizzle-orm";
import { consumerPosition, readsServed } from "../db/schema.js";
import type * as schema from "../db/schema.js";

/** One message of the served-reads stream: its stream sequence and route (null when it fails its contract). */
export interface ServedEntry {
  seq: number;
  route: string | null;
  /** Reads the entry stands for (an event counts a window of reads). */
  count: number;
}

export interface Committed {
  /** Reads newly counted by this batch (0 when another reader counted them first). */
  counted: number;
  /** Messages of the batch skipped because they fail their contract. */
  invalid: number;
  /** The stream position after the batch. */
  lastSeq: number;
  /** The first sequence of the batch lies past the position: messages left the stream uncounted. */
  gap: number;
}

/** The stream the reader follows is not the one the position belongs to (it was deleted and made again). */
export class StreamChanged extends Error {
  override readonly name = "StreamChanged";
}

/**
 * The per-route counts of served reads and the stream position they go up to, always
 * written together. Readers present contiguous runs of the stream in order; counting only
 * what lies past the position (under its row lock) keeps the counted messages a prefix of
 * the stream, so a message presented twice, by a restarted or a second reader, counts once.
 */
export class ReadsServedLedger {
  constructor(
    private readonly db: Database<typeof schema>,
    private readonly consumer = "reads-served",
  ) {}

  /**
   * Where a reader of the stream created at `streamCreated` resumes: after the last counted
   * sequence. A stream made anew starts its sequences at 1 again, so its position restarts
   * at 0 (the counts stay).
   */
  async resume(streamCreated: string): Promise<number> {
    return this.db.transaction(async (tx) => {
      await tx.insert(consumerPosition).values({ consumer: this.consumer, streamCreated, lastSeq: 0 }).onConflictDoNothing();
      const [row] = await tx.select().from(consumerPosition).where(eq(consumerPosition.consumer, this.consumer)).for("update");
      if (!row) throw new Error("consumer position missing");
      if (row.streamCreated === streamCreated) return row.lastSeq;
      await tx
        .update(consumerPosition)
        .set({ streamCreated, lastSeq: 0, updatedAt: sql`now()` })
        .where(eq(consumerPosition.consumer, this.consumer));
      return 0;
    });
  }

  /**
   * Counts a contiguous run of the stream, in one transaction with the position: entries at
   * or before the position are skipped, the rest are added to their routes and the position
   * moves to the run's end.
   */
  async commit(streamCreated: string, entries: readonly ServedEntry[]): Promise<Committed> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.select().from(consumerPosition).where(eq(consumerPosition.consumer, this.consumer)).for("update");
      if (!row || row.streamCreated !== streamCreated) throw new StreamChanged();
      const fresh = entries.filter((e) => e.seq > row.lastSeq);
      const first = fresh[0];
      const gap = first ? Math.max(0, first.seq - row.lastSeq - 1) : 0;
      const perRoute = new Map<string, number>();
      let invalid = 0;
      for (const e of fresh) {
        if (e.route === null) invalid++;
        else perRoute.set(e.route, (perRoute.get(e.route) ?? 0) + e.count);
      }
      if (perRoute.size > 0) {
        await tx
          .insert(readsServed)
          .values([...perRoute].map(([route, count]) => ({ route, count })))
          .onConflictDoUpdate({
            target: readsServed.route,
            set: { count: sql`${readsServed.count} + excluded.count`, updatedAt: sql`now()` },
          });
      }
      const lastSeq = Math.max(row.lastSeq, ...entries.map((e) => e.seq));
      if (lastSeq !== row.lastSeq) {
        await tx
          .update(consumerPosition)
          .set({ lastSeq, updatedAt: sql`now()` })
          .where(eq(consumerPosition.consumer, this.consumer));
      }
      const counted = fresh.reduce((n, e) => n + (e.route === null ? 0 : e.count), 0);
      return { counted, invalid, lastSeq, gap };
    });
  }

  /** The stream position the counts go up to (0 before anything is counted). */
  async position(): Promise<number> {
    const [row] = await this.db.select({ lastSeq: consumerPosition.lastSeq }).from(consumerPosition).where(eq(consumerPosition.consumer, this.consumer));
    return row?.lastSeq ?? 0;
  }

  /** Reads served per route. */
  async totals(): Promise<Record<string, number>> {
    const rows = await this.db.select({ route: readsServed.route, count: readsServed.count }).from(readsServed);
    return Object.fromEntries(rows.map((r) => [r.route, r.count]));
  }
}
