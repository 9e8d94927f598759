// The two buy-list lanes of a book (SCORING.md): risk-adjusted and swing, with entry window,
// structural stop and targets (priced by setup.ts, as the live tier's setups are).

import type { EntryState, HoldLabel, LaneEntry, Light, LiquidityTier } from "@board/proto";
import { atrPct, cents, levelsOf, type StructuralStop, type Window } from "./setup.js";
import { tierAtLeast } from "./state.js";
import { LANES } from "./weights.js";

/** A permitted name as the lanes see it. */
export type LaneCandidate = {
  sym: string;
  opp_score: number;
  entry_q: number;
  state: EntryState;
  light: Light;
  is_leader: boolean;
  gap_risk: number;
  liquidity: LiquidityTier;
  hold_label: HoldLabel;
  close: number;
  atr: number;
  /** The structural stop (setup.ts structuralStop), unrounded. */
  stop: StructuralStop;
  /** The entry window from the trigger's pivot (setup.ts entryWindowOf); null for a name that is no setup. */
  window: Window | null;
};

export function laneEntry(c: LaneCandidate & { window: Window }, rank: number): LaneEntry {
  const lv = levelsOf(c.close, c.stop.price);
  const [t2, t3] = lv.targets;
  return {
    sym: c.sym,
    rank,
    opp_score: c.opp_score,
    entry_q: c.entry_q,
    state: c.state,
    light: c.light,
    is_leader: c.is_leader,
    price: cents(c.close),
    atr_pct: atrPct(c.atr, c.close),
    entry_window: { low: cents(c.window.low), high: cents(c.window.high) },
    entry_basis: c.window.basis,
    stop: cents(lv.stop),
    stop_basis: c.stop.basis,
    targets: [cents(t2!), cents(t3!)],
  };
}

type LaneRule = (typeof LANES)["riskAdjusted" | "swing"];

const RANK_KEYS: Record<LaneRule["rankBy"], (c: LaneCandidate) => number> = {
  opp_score_per_atr_pct: (c) => c.opp_score / ((c.atr / c.close) * 100),
  entry_q: (c) => c.entry_q,
};

function admits(rule: LaneRule, c: LaneCandidate): boolean {
  return (
    (rule.states as readonly EntryState[]).includes(c.state) &&
    (rule.light === null || c.light === rule.light) &&
    (rule.maxGapRisk === null || c.gap_risk <= rule.maxGapRisk)
  );
}

function top(cands: readonly (LaneCandidate & { window: Window })[], rule: LaneRule): LaneEntry[] {
  const key = RANK_KEYS[rule.rankBy];
  return cands
    .filter((c) => admits(rule, c))
    .map((c) => ({ c, k: key(c) }))
    .sort((a, b) => b.k - a.k || (a.c.sym < b.c.sym ? -1 : 1))
    .slice(0, LANES.size)
    .map(({ c }, i) => laneEntry(c, i + 1));
}

const isSetup = (c: LaneCandidate): c is LaneCandidate & { window: Window } => c.window !== null;

/**
 * Both lanes from the book's permitted names, by the rules of LANES. Only permitted long setups
 * enter (an entry window, liquidity C or better, a hold read above EXIT, a range to size by).
 * Risk-adjusted: READY or SETUP with gap risk <= 80, ranked by opp_score / ATR%. Swing: READY
 * with the light firing, ranked by entry quality. Ties go alphabetically so the order is stable.
 */
export function buildLanes(permitted: readonly LaneCandidate[]): { risk_adjusted: LaneEntry[]; swing: LaneEntry[] } {
  const liquid = permitted
    .filter(isSetup)
    .filter((c) => tierAtLeast(c.liquidity, LANES.minLiquidity) && c.hold_label !== "EXIT" && c.atr > 0 && c.stop.price < c.close);
  return { risk_adjusted: top(liquid, LANES.riskAdjusted), swing: top(liquid, LANES.swing) };
}
