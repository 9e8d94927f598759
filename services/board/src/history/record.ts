import { VerdictFigures, type BoardContent, type BookCode } from "@board/proto";
import { desc, lt, sql } from "drizzle-orm";
import { changeBases, dailyMarks, nameSessions, verdictChanges } from "../db/schema.js";
import type { Tx } from "../proof/chain.js";
import { changeBasisOf, type ChangeBasis } from "./basis.js";

/** How long each history is kept, in sessions (board env). */
export interface HistoryRetention {
  /** Name sessions and the verdict log. */
  sessions: number;
  /** The change bases /api/board/changes compares from: how old a `since` may be. */
  changeSessions: number;
}

/** A name session as stored: [state, light, trigger, opp_score, opp_pct, entry_q, hold_q, hold_label, price]. */
export type StoredNameSession = [string, string, string | null, number, number, number, number, string, number];

/**
 * Writes what the history reads serve, in the transaction that commits the board (store.ts),
 * after its commitment: the board's change basis, each verdict that differs from the previous
 * committed board's, and each name's record for its session (a later board of a session
 * replaces an earlier one; an older board arriving late does not). Then drops what is past
 * retention.
 */
export async function recordHistory(tx: Tx, commit: { seq: number; contentHash: string; snapshotHash: string }, board: BoardContent, retention: HistoryRetention): Promise<void> {
  const basis = changeBasisOf(board);
  const computedAt = new Date(board.computed_at);
  const [previous] = await tx.select({ basis: changeBases.basis }).from(changeBases).where(lt(changeBases.seq, commit.seq)).orderBy(desc(changeBases.seq)).limit(1);
  await tx.insert(changeBases).values({ seq: commit.seq, contentHash: commit.contentHash, snapshotHash: commit.snapshotHash, asofDaily: board.asof_daily, computedAt, basis });
  if (previous) {
    const before = (previous.basis as ChangeBasis).verdicts;
    const changed = board.book_order.filter((code) => before[code] !== undefined && board.books[code] !== undefined && before[code] !== board.books[code]!.regime.verdict);
    if (changed.length > 0) {
      await tx.insert(verdictChanges).values(
        changed.map((code: BookCode) => {
          const regime = board.books[code]!.regime;
          // The schema keeps only the figures' fields (a verdict changes a few times a week).
          const figures = VerdictFigures.parse(regime);
          return { seq: commit.seq, book: code, asofDaily: board.asof_daily, computedAt, fromVerdict: before[code]!, toVerdict: regime.verdict, figures };
        }),
      );
    }
  }
  if (board.names.length > 0) {
    await tx
      .insert(nameSessions)
      .values(
        board.names.map((n) => ({
          sym: n.sym,
          asofDaily: board.asof_daily,
          computedAt,
          seq: commit.seq,
          record: [n.state, n.light, n.trigger, n.opp_score, n.opp_pct, n.entry_q, n.hold_q, n.hold_label, n.price] satisfies StoredNameSession,
        })),
      )
      .onConflictDoUpdate({
        target: [nameSessions.sym, nameSessions.asofDaily],
        set: { computedAt: sql`excluded.computed_at`, seq: sql`excluded.seq`, record: sql`excluded.record` },
        setWhere: sql`${nameSessions.computedAt} < excluded.computed_at`,
      });
  }
  await dropPastRetention(tx, retention);
}

/** The oldest session kept when `sessions` are kept, from the sessions committed (daily_marks has one row each). */
const oldestKept = (sessions: number) =>
  sql`(select ${dailyMarks.asofDaily} from ${dailyMarks} order by ${dailyMarks.asofDaily} desc offset ${sessions - 1} limit 1)`;

async function dropPastRetention(tx: Tx, retention: HistoryRetention): Promise<void> {
  await tx.delete(nameSessions).where(lt(nameSessions.asofDaily, oldestKept(retention.sessions)));
  await tx.delete(verdictChanges).where(lt(verdictChanges.asofDaily, oldestKept(retention.sessions)));
  await tx.delete(changeBases).where(lt(changeBases.asofDaily, oldestKept(retention.changeSessions)));
}
