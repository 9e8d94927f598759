import { z } from "zod";
import { BookCode, IsoDate, Percentile, Score, SectorOrIndex, Symbol } from "./common.js";

/** SPEC.md section 3: entry states, first match wins (SCORING.md). */
export const EntryState = z.enum(["READY", "SETUP", "WAIT", "CHASE", "FALLING"]);
export type EntryState = z.infer<typeof EntryState>;

/** Firing when the READY trigger happened on today's or yesterday's bar. */
export const Light = z.enum(["firing", "cold"]);
export type Light = z.infer<typeof Light>;

/**
 * What set off READY: a breakout (a close above the prior 20-day high on volume at least 1.5x its
 * 20-day average, on entering READY or while READY), or a pullback (entering READY by reclaiming
 * the 21-day EMA and holding within -0.5..+1.5 ATR of it).
 */
export const Trigger = z.enum(["breakout", "pullback"]);
export type Trigger = z.infer<typeof Trigger>;

export const HoldLabel = z.enum(["STRONG", "HOLD", "WEAKENING", "TRIM", "EXIT"]);
export type HoldLabel = z.infer<typeof HoldLabel>;

/** Liquidity tier by adv20_usd: A >= 500M, B >= 100M, C >= 20M, D below. */
export const LiquidityTier = z.enum(["A", "B", "C", "D"]);
export type LiquidityTier = z.infer<typeof LiquidityTier>;

/** SPEC.md 2.2, with the further per-name fields the endpoint descriptions name, typed here. */
export const NameRecord = z.object({
  sym: Symbol,
  name: z.string().min(1),
  sector: SectorOrIndex,
  bk: z.array(BookCode).min(1),
  price: z.number().positive(),
  chg_pct: z.number(),
  opp_score: Score,
  opp_pct: Percentile,
  state: EntryState,
  prev_state: EntryState.nullable(),
  light: Light,
  entry_q: Score,
  hold_q: Score,
  hold_label: HoldLabel,
  is_leader: z.boolean(),
  growth_score: Score,
  gap_risk: Score,
  dollar_volume: z.number().min(0),
  adv20_usd: z.number().min(0),
  liquidity: LiquidityTier,
  /** The book whose members every percentile of this record is ranked among (the name's first book). */
  ranked_in: BookCode,
  /** How many of the trend template's eight rules hold (0-8). */
  tt_count: z.number().int().min(0).max(8),
  /** The READY trigger of the current (or just ended) READY run; null when there is none. */
  trigger: Trigger.nullable(),
  /** The session of that trigger's bar, YYYY-MM-DD; null with no trigger. */
  trigger_date: IsoDate.nullable(),
  /** Consecutive sessions in the current state, today included; 64 means 64 or more. */
  days_in_state: z.number().int().min(1),
});
export type NameRecord = z.infer<typeof NameRecord>;
