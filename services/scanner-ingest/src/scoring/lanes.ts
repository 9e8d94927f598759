// The two buy-list lanes of a book (SCORING.md): risk-adjusted and swing, with entry window,
// structural stop and targets.

import type { EntryState, LaneEntry, Light, LiquidityTier } from "@board/proto";
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
};

const cents = (x: number) => Math.max(0.01, Math.round(x * 100) / 100);

export function laneEntry(c: LaneCandidate, rank: number): LaneEntry {
  const stop = c.close - LANES.stopAtr * c.atr;
  const risk = c.close - stop;
  return {
    sym: c.sym,
    rank,
    opp_score: c.opp_score,
    entry_q: c.entry_q,
    state: c.state,
    light: c.light,
    is_leader: c.is_leader,
    price: cents(c.close),
    atr_pct: Math.round((c.atr / c.close) * 10_000) / 100,
    entry_window: {
      low: cents(Math.max(stop, c.close - LANES.entryBelowAtr * c.atr)),
      high: cents(c.close + LANES.entryAboveAtr * c.atr),
    },
    stop: cents(stop),
    targets: [cents(c.close + LANES.targetsR[0] * risk), cents(c.close + LANES.targetsR[1] * risk)],
  };
}

function top(cands: LaneCandidate[], key: (c: LaneCandidate) => number): LaneEntry[] {
  return cands
    .map((c) => ({ c, k: key(c) }))
    .sort((a, b) => b.k - a.k || (a.c.sym < b.c.sym ? -1 : 1))
    .slice(0, LANES.size)
    .map(({ c }, i) => laneEntry(c, i + 1));
}

/**
 * Both lanes from the book's permitted names. Liquidity D never enters. Risk-adjusted: READY or
 * SETUP with gap risk <= 80, ranked by opp_score / ATR%. Swing: READY with the light firing, ranked by
 * entry quality. Ties go alphabetically so the order is stable.
 */
export function buildLanes(permitted: readonly LaneCandidate[]): { risk_adjusted: LaneEntry[]; swing: LaneEntry[] } {
  const liquid = permitted.filter((c) => tierAtLeast(c.liquidity, LANES.minLiquidity) && c.atr > 0);
  const riskAdjusted = liquid.filter((c) => (c.state === "READY" || c.state === "SETUP") && c.gap_risk <= LANES.maxGapRisk);
  const swing = liquid.filter((c) => c.state === "READY" && c.light === "firing");
  return {
    risk_adjusted: top(riskAdjusted, (c) => c.opp_score / ((c.atr / c.close) * 100)),
    swing: top(swing, (c) => c.entry_q),
  };
}
