// The two buy-list lanes of a book (SCORING.md): risk-adjusted and swing, with entry window,
// structural stop and targets (priced by setup.ts, as the live tier's setups are).

import type { EntryState, LaneEntry, Light, LiquidityTier } from "@board/proto";
import { atrPct, cents, levelsOf } from "./setup.js";
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
  close: number;
  atr: number;
  /** The structural stop (setup.ts structuralStop), unrounded. */
  stop: number;
};

export function laneEntry(c: LaneCandidate, rank: number): LaneEntry {
  const lv = levelsOf(c.close, c.atr, c.stop);
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
    entry_window: { low: cents(lv.entryLow), high: cents(lv.entryHigh) },
    stop: cents(lv.stop),
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

function top(cands: readonly LaneCandidate[], rule: LaneRule): LaneEntry[] {
  const key = RANK_KEYS[rule.rankBy];
  return cands
    .filter((c) => admits(rule, c))
    .map((c) => ({ c, k: key(c) }))
    .sort((a, b) => b.k - a.k || (a.c.sym < b.c.sym ? -1 : 1))
    .slice(0, LANES.size)
    .map(({ c }, i) => laneEntry(c, i + 1));
}

/**
 * Both lanes from the book's permitted names, by the rules of LANES. Liquidity below C never
 * enters. Risk-adjusted: READY or SETUP with gap risk <= 80, ranked by opp_score / ATR%. Swing:
 * READY with the light firing, ranked by entry quality. Ties go alphabetically so the order is stable.
 */
export function buildLanes(permitted: readonly LaneCandidate[]): { risk_adjusted: LaneEntry[]; swing: LaneEntry[] } {
  const liquid = permitted.filter((c) => tierAtLeast(c.liquidity, LANES.minLiquidity) && c.atr > 0);
  return { risk_adjusted: top(liquid, LANES.riskAdjusted), swing: top(liquid, LANES.swing) };
}
