import { z } from "zod";
import { BookCode, IsoDate, IsoDateTime, PRODUCT, Percentile, Score, SectorOrIndex, Symbol } from "./common.js";
import { Lane } from "./book.js";
import { EntryBasis, StopBasis } from "./levels.js";
import { FreshnessBlock } from "./freshness.js";
import { EntryState, HoldLabel, Light, LiquidityTier, Trigger } from "./name-record.js";
import { PermissionLadder, RegimeVerdictCode, Stance } from "./regime.js";
import { VerdictLine } from "./read-views.js";

// The live tier (SPEC.md 4.3): what the scanner adds to a snapshot for it (the engine section),
// and the three views the board renders from it. SPEC.md shows no shapes; these are ours.

const Price = z.number().positive();
const Multiple = z.number().positive();
const Bars = z.number().int().positive();
const Conviction = z.number().int().min(0).max(100);

/** Conviction 0-100 read as a word; a name no book's ladder permits never reads above LOW. */
export const ConvictionLabel = z.enum(["HIGH", "MEDIUM", "LOW", "NONE"]);
export type ConvictionLabel = z.infer<typeof ConvictionLabel>;

export const EntryWindow = z.object({ low: Price, high: Price });
export type EntryWindow = z.infer<typeof EntryWindow>;

// ---------------------------------------------------------------------------------------------
// The engine section of a snapshot (scanner -> board)

/**
 * Why a name is not a permitted long setup (the first that applies): its entry state is not READY
 * or SETUP, no book's permission ladder lets it be bought, its liquidity is below C, or its hold
 * read says EXIT.
 */
export const SetupRefusal = z.enum(["state_falling", "state_chase", "state_wait", "not_permitted_by_regime", "illiquid", "hold_exit"]);
export type SetupRefusal = z.infer<typeof SetupRefusal>;

/**
 * One name's price levels and conviction as the engine computes them; the board joins them with
 * the name record. Only a permitted long setup (refusal null) carries an entry window, a stop and
 * targets; any other name carries nulls there and says why in `refusal`.
 */
export const EngineSetup = z.object({
  sym: Symbol,
  /** Wilder ATR in price units, and as a percent of the close. */
  atr: z.number().min(0),
  atr_pct: z.number().min(0),
  entry_window: EntryWindow.nullable(),
  entry_basis: EntryBasis.nullable(),
  stop: Price.nullable(),
  stop_basis: StopBasis.nullable(),
  /** Highest high of the chandelier window less its ATR multiple: the hold read's trailing line. */
  chandelier_stop: Price,
  risk_per_share: z.number().min(0).nullable(),
  /** One price per target R multiple of the rules, in their order (2R, 3R); null when not a setup. */
  targets: z.array(Price).min(1).nullable(),
  conviction: Conviction,
  conviction_label: ConvictionLabel,
  /** The books whose permission ladder lets this name be bought now. */
  permitted: z.array(BookCode),
  /** Null for a permitted long setup; otherwise why it is not one. */
  refusal: SetupRefusal.nullable(),
});
export type EngineSetup = z.infer<typeof EngineSetup>;

/** Who enters a lane and how it is ranked. */
export const LaneRule = z.object({
  size: z.number().int().positive(),
  states: z.array(EntryState).min(1),
  /** The light a name must show; null: either. */
  light: Light.nullable(),
  /** The highest overnight gap risk admitted; null: no limit. */
  max_gap_risk: Score.nullable(),
  min_liquidity: LiquidityTier,
  rank_by: z.enum(["opp_score_per_atr_pct", "entry_q"]),
});
export type LaneRule = z.infer<typeof LaneRule>;

/** One rung of the permission ladder: what a verdict lets through. */
export const LadderRule = z.object({
  verdict: RegimeVerdictCode,
  stance: Stance,
  index: z.boolean(),
  /** none; the sectors whose ETF is above its 50-day average; or the top sectors by relative strength. */
  sectors: z.enum(["none", "above_sma50", "top_by_rs"]),
  names: PermissionLadder.shape.names,
});
export type LadderRule = z.infer<typeof LadderRule>;

/** The engine's parameters of engagement, as the scanner computes with them. Scoring weights are not published. */
export const EngineRules = z.object({
  atr_bars: Bars,
  stop: z.object({
    atr_multiple: Multiple,
    pullback_lookback_bars: Bars,
    pullback_buffer_atr: z.number().min(0),
    pullback_min_risk_atr: z.number().min(0),
    pullback_max_risk_atr: Multiple,
  }),
  chandelier: z.object({ high_bars: Bars, atr_bars: Bars, atr_multiple: Multiple }),
  targets_r: z.array(Multiple).min(1),
  /**
   * The entry window from the trigger's pivot: a pullback's band around EMA21 on its trigger bar,
   * or a breakout's pivot (the highest high of `pivot_bars` bars before it) up to `pivot_above_atr`
   * ATR above it; a SETUP's window is the pivot it must clear.
   */
  entry_window: z.object({
    pullback_band_atr: z.object({ below: z.number().min(0), above: z.number().min(0) }),
    pivot_bars: Bars,
    pivot_above_atr: z.number().min(0),
  }),
  /** Sessions of state history the trigger, the light and days_in_state are read over. */
  state_history_bars: Bars,
  lanes: z.object({ risk_adjusted: LaneRule, swing: LaneRule }),
  regime: z.object({
    ladder: z.array(LadderRule),
    /** A sector is green under above_sma50 when its ETF closes above this average. */
    sector_sma_bars: Bars,
    top_sectors: z.number().int().positive(),
    sector_rs_bars: Bars,
    confirm_closes: z.number().int().positive(),
    equity: z.object({
      index_sma_bars: Bars,
      index_band_pct: z.number().min(0),
      index_only_below_breadth_50: Score,
      sectors_on_below_breadth_50: Score,
      names_on_min_breadth_50: Score,
      names_on_min_breadth_200: Score,
    }),
    crypto: z.object({ sma_bars: Bars, band_pct: z.number().min(0), sectors: z.array(SectorOrIndex) }),
  }),
  hold: z.object({ labels: z.array(z.object({ label: HoldLabel, min: Score })) }),
  conviction: z.object({ labels: z.array(z.object({ label: ConvictionLabel, min: Score })), unpermitted_max: Conviction }),
  cadence: z.object({
    refresh_minutes: z.number().int().positive(),
    morning_lead_minutes: z.number().int().min(0),
    timezone: z.literal("America/New_York"),
    /** The crypto book is refreshed only on US weekdays although crypto trades continuously. */
    crypto: z.literal("us_weekdays"),
  }),
});
export type EngineRules = z.infer<typeof EngineRules>;

/** Optional in a snapshot: without it the live views are not rendered. `setups` runs in the board's names order. */
export const EngineSection = z.object({ rules: EngineRules, setups: z.array(EngineSetup) });
export type EngineSection = z.infer<typeof EngineSection>;

// ---------------------------------------------------------------------------------------------
// The views (board -> reader)

const head = {
  product: z.literal(PRODUCT),
  asof_daily: IsoDate,
  computed_at: IsoDateTime,
  intraday: z.boolean(),
};
const tail = { disclaimer: z.string(), freshness: FreshnessBlock };

/** A target: its R multiple (risk per share from entry at the price) and its price. */
export const Target = z.object({ r: Multiple, price: Price });
export type Target = z.infer<typeof Target>;

/** A name's place in a book's lane. */
export const LanePlace = z.object({ book: BookCode, lane: Lane, rank: z.number().int().min(1) });
export type LanePlace = z.infer<typeof LanePlace>;

/** A book's verdict, and whether its permission ladder lets the name be bought now. */
export const BookPermission = z.object({ book: BookCode, verdict: RegimeVerdictCode, stance: Stance, permitted: z.boolean() });
export type BookPermission = z.infer<typeof BookPermission>;

/** /api/live/setup: one name's full setup. */
export const NameSetup = z.object({
  sym: Symbol,
  name: z.string().min(1),
  sector: SectorOrIndex,
  bk: z.array(BookCode).min(1),
  price: Price,
  chg_pct: z.number(),
  state: EntryState,
  light: Light,
  opp_score: Score,
  opp_pct: Percentile,
  entry_q: Score,
  atr: z.number().min(0),
  atr_pct: z.number().min(0),
  /** Null unless the name is a permitted long setup. */
  entry_window: EntryWindow.nullable(),
  entry_basis: EntryBasis.nullable(),
  /** The last price is inside the entry window now (false without a window). */
  in_entry_window: z.boolean(),
  stop: Price.nullable(),
  stop_basis: StopBasis.nullable(),
  chandelier_stop: Price,
  risk_per_share: z.number().min(0).nullable(),
  targets: z.array(Target).min(1).nullable(),
  conviction: Conviction,
  conviction_label: ConvictionLabel,
  hold_q: Score,
  hold_label: HoldLabel,
  is_leader: z.boolean(),
  liquidity: LiquidityTier,
  gap_risk: Score,
  /** Every lane of every book the name is in now. */
  lanes: z.array(LanePlace),
  /** Every book of the name, with its verdict and permission. */
  books: z.array(BookPermission).min(1),
  /** A permitted long setup: READY or SETUP, a book's ladder permits it, liquid (C or better), not EXIT. */
  permitted: z.boolean(),
  /** Null when permitted; otherwise why not. */
  refusal: SetupRefusal.nullable(),
  /** As the name record: the book its figures are ranked in, the trend template count, the READY trigger behind the window, the sessions in the current state. */
  ranked_in: BookCode,
  tt_count: z.number().int().min(0).max(8),
  trigger: Trigger.nullable(),
  trigger_date: IsoDate.nullable(),
  days_in_state: z.number().int().min(1),
});
export type NameSetup = z.infer<typeof NameSetup>;

/** An entry of a book's lane in the feed: the buy-list entry with its structural stop, targets and conviction. */
export const LiveLaneEntry = z.object({
  rank: z.number().int().min(1),
  sym: Symbol,
  price: Price,
  state: EntryState,
  light: Light,
  is_leader: z.boolean(),
  opp_score: Score,
  entry_q: Score,
  atr_pct: z.number().min(0),
  entry_window: EntryWindow,
  entry_basis: EntryBasis,
  stop: Price,
  stop_basis: StopBasis,
  risk_per_share: z.number().min(0),
  targets: z.array(Target).min(1),
  conviction: Conviction,
  conviction_label: ConvictionLabel,
});
export type LiveLaneEntry = z.infer<typeof LiveLaneEntry>;

export const LiveBook = z.object({
  title: z.string(),
  regime: VerdictLine,
  ladder: PermissionLadder,
  risk_adjusted: z.array(LiveLaneEntry),
  swing: z.array(LiveLaneEntry),
});
export type LiveBook = z.infer<typeof LiveBook>;

/** A name the engine serves now (it is in at least one lane), with its full setup; ranked by conviction. */
export const Candidate = z.object({ rank: z.number().int().min(1), ...NameSetup.shape });
export type Candidate = z.infer<typeof Candidate>;

/** /api/live/feed: every book's verdict, ladder and lanes, and the served candidates, refreshed with each publish. */
export const LiveFeedView = z.object({
  ...head,
  books: z.record(BookCode, LiveBook),
  candidates: z.array(Candidate),
  ...tail,
});
export type LiveFeedView = z.infer<typeof LiveFeedView>;

export const LiveRule = z.object({ topic: z.string().min(1), text: z.string().min(1) });
export type LiveRule = z.infer<typeof LiveRule>;

/** /api/live/rules: the engine's parameters and the same rules in plain language. */
export const LiveRulesView = z.object({ ...head, engine: EngineRules, rules: z.array(LiveRule).min(1), ...tail });
export type LiveRulesView = z.infer<typeof LiveRulesView>;

/** /api/live/setup: the setups of the requested symbols (every name without `sym`); unknown symbols listed. */
export const LiveSetupView = z.object({ ...head, names: z.array(NameSetup), unknown: z.array(z.string()), ...tail });
export type LiveSetupView = z.infer<typeof LiveSetupView>;
