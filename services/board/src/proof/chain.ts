import { boardContentHash, chainCommitment, GENESIS_COMMITMENT, type BoardContent } from "@board/proto";
import { desc, eq, sql } from "drizzle-orm";
import type { PgTransaction } from "drizzle-orm/pg-core";
import { commitments } from "../db/schema.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the transaction type differs between pg and PGlite
export type Tx = PgTransaction<any, any, any>;

/**
 * Appends the commitment of a newly stored snapshot. Replicas append under one advisory
 * lock, so the chain has one order and no fork; a snapshot already committed is left alone
 * (null). The lock is held to the end of the transaction: what else it writes follows the
 * chain's order.
 */
export async function appendCommitment(tx: Tx, snapshotHash: string, board: BoardContent, committedAt: Date): Promise<{ seq: number; contentHash: string } | null> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('board:proof'))`);
  const [existing] = await tx.select({ seq: commitments.seq }).from(commitments).where(eq(commitments.snapshotHash, snapshotHash)).limit(1);
  if (existing) return null;
  const [last] = await tx.select().from(commitments).orderBy(desc(commitments.seq)).limit(1);
  const previous = last?.commitment ?? GENESIS_COMMITMENT;
  const contentHash = boardContentHash(board);
  const seq = (last?.seq ?? 0) + 1;
  await tx.insert(commitments).values({
    seq,
    snapshotHash,
    contentHash,
    previous,
    commitment: chainCommitment(previous, contentHash),
    asofDaily: board.asof_daily,
    computedAt: new Date(board.computed_at),
    intraday: board.intraday,
    committedAt,
  });
  return { seq, contentHash };
}
