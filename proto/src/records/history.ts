import { z } from "zod";
import { BoardContent } from "./board.js";
import { Lane } from "./book.js";
import { BookCode, IsoDate, IsoDateTime, Percentile, PRODUCT, Score, Symbol } from "./common.js";
import { FreshnessBlock } from "./freshness.js";
import { EntryState, HoldLabel, Light, Trigger } from "./name-record.js";
import { Commitment } from "./proof-views.js";
import { RegimeVerdict, RegimeVerdictCode } from "./regime.js";

/** The most sessions a history read reaches back. */
export const HISTORY_MAX_SESSIONS = 250;
/** The most names one name-history read takes. */
export const HISTORY_MAX_NAMES = 10;

/** A committed board as the history reads name it: the fields of its commitment that say which. */
export const BoardRef = Commitment.pick({ seq: true, content_hash: true, asof_daily: true, computed_at: true });
export type BoardRef = z.infer<typeof BoardRef>;

/** /api/board/asof?date=: the last committed board of a session, with the commitment that proves it. */
export const AsofView = z.object({
  product: z.literal(PRODUCT),
  date: IsoDate,
  commitment: Commitment,
  board: BoardContent,
  freshness: FreshnessBlock,
});
export type AsofView = z.infer<typeof AsofView>;

/** What decided a verdict: the breadth and index figures of the board that changed it. */
export const VerdictFigures = RegimeVerdict.pick({ index_sym: true, index_above_sma50: true, index_above_sma200: true, breadth_50: true, breadth_200: true });
export type VerdictFigures = z.infer<typeof VerdictFigures>;

/** One change of a book's verdict between two consecutive committed boards. */
export const VerdictChange = z.object({
  book: BookCode,
  date: IsoDate,
  computed_at: IsoDateTime,
  seq: z.number().int().min(1),
  from: RegimeVerdictCode,
  to: RegimeVerdictCode,
  figures: VerdictFigures,
});
export type VerdictChange = z.infer<typeof VerdictChange>;

/** /api/board/regime/history: each verdict change over the last `days` sessions, oldest first. */
export const RegimeHistoryView = z.object({
  product: z.literal(PRODUCT),
  books: z.array(BookCode),
  days: z.number().int().min(1).max(HISTORY_MAX_SESSIONS),
  /** The sessions covered, oldest first (null when nothing is committed yet). */
  first_session: IsoDate.nullable(),
  last_session: IsoDate.nullable(),
  changes: z.array(VerdictChange),
  freshness: FreshnessBlock,
});
export type RegimeHistoryView = z.infer<typeof RegimeHistoryView>;

/** A name's record as the session's last committed board had it. */
export const NameSession = z.object({
  date: IsoDate,
  state: EntryState,
  light: Light,
  trigger: Trigger.nullable(),
  opp_score: Score,
  opp_pct: Percentile,
  entry_q: Score,
  hold_q: Score,
  hold_label: HoldLabel,
  price: z.number().positive(),
});
export type NameSession = z.infer<typeof NameSession>;

/** /api/board/name/history: per name, its sessions over the last `days`, oldest first. */
export const NameHistoryView = z.object({
  product: z.literal(PRODUCT),
  days: z.number().int().min(1).max(HISTORY_MAX_SESSIONS),
  names: z.array(z.object({ sym: Symbol, sessions: z.array(NameSession) })),
  freshness: FreshnessBlock,
});
export type NameHistoryView = z.infer<typeof NameHistoryView>;

/** /api/board/changes: what moved from one committed board to the current one. */
export const ChangesView = z.object({
  product: z.literal(PRODUCT),
  from: BoardRef,
  to: BoardRef,
  verdicts: z.array(z.object({ book: BookCode, from: RegimeVerdictCode, to: RegimeVerdictCode })),
  lanes: z.array(z.object({ book: BookCode, lane: Lane, entered: z.array(Symbol), left: z.array(Symbol) })),
  states: z.array(z.object({ sym: Symbol, from: EntryState.nullable(), to: EntryState.nullable() })),
  newly_firing: z.array(Symbol),
  freshness: FreshnessBlock,
});
export type ChangesView = z.infer<typeof ChangesView>;
