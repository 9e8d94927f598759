import type { BookCode, ChangesView, EntryState, HoldLabel, Light, NameSession, RegimeVerdictCode, Trigger, VerdictChange, VerdictFigures } from "@board/proto";
import type { Database } from "@board/service-kit";
import { and, asc, desc, eq, gte, inArray, lte, or, sql } from "drizzle-orm";
import type * as schema from "../db/schema.js";
import { changeBases, commitments, dailyMarks, nameSessions, verdictChanges } from "../db/schema.js";
import { changesBetween, type ChangeBasis } from "./basis.js";
import type { StoredNameSession } from "./record.js";

/** Why a `since` cannot be compared from: unknown to the board, or older than what it keeps. */
export type ChangesRefusal = { reason: "unknown_board" | "board_too_old" | "board_too_new"; oldest: { content_hash: string; asof_daily: string; computed_at: string } | null };

/** A session's last committed board, or the committed sessions nearest a date that has none. */
export type DatedBoard = { found: true; snapshotHash: string } | { found: false; before: string | null; after: string | null };

/** The committed board a history read is cut at: its proof-chain seq and its session. */
export interface BoardAt {
  seq: number;
  asofDaily: string;
}
const LAST_DAY = "9999-12-31";
/** Past every seq (the column is a 4-byte integer). */
const LATEST: BoardAt = { seq: 2_147_483_647, asofDaily: LAST_DAY };

/** The history reads, from the tables written with each commitment (record.ts); never from snapshots. */
export class HistoryReads {
  constructor(private readonly db: Database<typeof schema>) {}

  /** The last `days` committed sessions up to `through` (a session), oldest first. */
  async sessions(days: number, through: string = LAST_DAY): Promise<string[]> {
    const rows = await this.db
      .select({ d: dailyMarks.asofDaily })
      .from(dailyMarks)
      .where(lte(dailyMarks.asofDaily, through))
      .orderBy(desc(dailyMarks.asofDaily))
      .limit(days);
    return rows.map((r) => r.d).reverse();
  }

  /**
   * Each verdict change of `books` (all when null) over the last `days` sessions, in commit
   * order, up to the board committed as `at` (the read's board: a redelivery sees what was bought).
   */
  async verdictChanges(books: readonly BookCode[] | null, days: number, at: BoardAt = LATEST): Promise<{ sessions: string[]; changes: VerdictChange[] }> {
    const sessions = await this.sessions(days, at.asofDaily);
    if (sessions.length === 0) return { sessions, changes: [] };
    const within = and(gte(verdictChanges.asofDaily, sessions[0]!), lte(verdictChanges.seq, at.seq));
    const rows = await this.db
      .select()
      .from(verdictChanges)
      .where(books ? and(within, inArray(verdictChanges.book, [...books])) : within)
      .orderBy(asc(verdictChanges.seq), asc(verdictChanges.book));
    return {
      sessions,
      changes: rows.map((r) => ({
        book: r.book as BookCode,
        date: r.asofDaily,
        computed_at: r.computedAt.toISOString(),
        seq: r.seq,
        from: r.fromVerdict as RegimeVerdictCode,
        to: r.toVerdict as RegimeVerdictCode,
        figures: r.figures as VerdictFigures,
      })),
    };
  }

  /** Per symbol, its sessions over the last `days` up to the board `at`, oldest first (a session it was not on the board is absent). */
  async nameSessions(syms: readonly string[], days: number, at: BoardAt = LATEST): Promise<{ sym: string; sessions: NameSession[] }[]> {
    const sessions = await this.sessions(days, at.asofDaily);
    const out = new Map(syms.map((s) => [s, [] as NameSession[]]));
    if (sessions.length === 0 || syms.length === 0) return [...out].map(([sym, s]) => ({ sym, sessions: s }));
    const rows = await this.db
      .select({ sym: nameSessions.sym, date: nameSessions.asofDaily, record: nameSessions.record })
      .from(nameSessions)
      .where(and(inArray(nameSessions.sym, [...syms]), gte(nameSessions.asofDaily, sessions[0]!), lte(nameSessions.asofDaily, at.asofDaily), lte(nameSessions.seq, at.seq)))
      .orderBy(asc(nameSessions.asofDaily));
    for (const r of rows) {
      const [state, light, trigger, oppScore, oppPct, entryQ, holdQ, holdLabel, price] = r.record as StoredNameSession;
      out.get(r.sym)?.push({
        date: r.date,
        state: state as EntryState,
        light: light as Light,
        trigger: trigger as Trigger | null,
        opp_score: oppScore,
        opp_pct: oppPct,
        entry_q: entryQ,
        hold_q: holdQ,
        hold_label: holdLabel as HoldLabel,
        price,
      });
    }
    return [...out].map(([sym, s]) => ({ sym, sessions: s }));
  }

  /** What changed from the board `since` names (its content or snapshot hash) to the board `at` (the newest by default). */
  async changesSince(since: string, at: BoardAt = LATEST): Promise<Pick<ChangesView, "from" | "to" | "verdicts" | "lanes" | "states" | "newly_firing"> | ChangesRefusal> {
    const [from] = await this.db
      .select()
      .from(changeBases)
      .where(or(eq(changeBases.contentHash, since), eq(changeBases.snapshotHash, since)))
      .limit(1);
    if (!from) {
      const [oldest] = await this.db.select().from(changeBases).orderBy(asc(changeBases.seq)).limit(1);
      // A board committed but no longer kept is too old; one never committed is unknown.
      const [committed] = await this.db.select({ seq: commitments.seq }).from(commitments).where(or(eq(commitments.contentHash, since), eq(commitments.snapshotHash, since))).limit(1);
      const ref = oldest ? { content_hash: oldest.contentHash, asof_daily: oldest.asofDaily, computed_at: oldest.computedAt.toISOString() } : null;
      return { reason: committed ? "board_too_old" : "unknown_board", oldest: ref };
    }
    const [to] = await this.db.select().from(changeBases).where(lte(changeBases.seq, at.seq)).orderBy(desc(changeBases.seq)).limit(1);
    if (!to || to.seq < from.seq) return { reason: "board_too_new", oldest: null };
    const ref = (r: typeof from) => ({ seq: r.seq, content_hash: r.contentHash, asof_daily: r.asofDaily, computed_at: r.computedAt.toISOString() });
    const a = from.basis as ChangeBasis;
    const b = to.basis as ChangeBasis;
    return { from: ref(from), to: ref(to), ...changesBetween(a, b) };
  }

  /** The last committed board of session `date`, or the committed sessions either side of it. */
  async datedBoard(date: string): Promise<DatedBoard> {
    const [day] = await this.db.select({ hash: dailyMarks.snapshotHash }).from(dailyMarks).where(eq(dailyMarks.asofDaily, date)).limit(1);
    if (day) return { found: true, snapshotHash: day.hash };
    const [before] = await this.db.select({ d: dailyMarks.asofDaily }).from(dailyMarks).where(sql`${dailyMarks.asofDaily} < ${date}`).orderBy(desc(dailyMarks.asofDaily)).limit(1);
    const [after] = await this.db.select({ d: dailyMarks.asofDaily }).from(dailyMarks).where(sql`${dailyMarks.asofDaily} > ${date}`).orderBy(asc(dailyMarks.asofDaily)).limit(1);
    return { found: false, before: before?.d ?? null, after: after?.d ?? null };
  }
}
