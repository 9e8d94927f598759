// The engine's rules of engagement as the live tier publishes them: read off the same constants
// the scoring computes with (weights.ts), so the published rules cannot drift from the engine.
// Scoring weights (opportunity, hold points, conviction weights) stay unpublished.

import { RegimeVerdictCode, STANCE_OF, type EngineRules, type LaneRule } from "@board/proto";
import { CONVICTION, CRYPTO_SECTORS, HOLD, HOLD_LABELS, LADDER, LANES, REGIME, SETUP, STATE, STATE_HISTORY_BARS, WINDOWS } from "./weights.js";

/** The schedule the scanner runs on: minutes between market-hours scans, and the morning board's lead. */
export type Cadence = { refreshMinutes: number; morningLeadMinutes: number };

function laneRule(rule: (typeof LANES)["riskAdjusted" | "swing"]): LaneRule {
  return {
    size: LANES.size,
    states: [...rule.states],
    light: rule.light,
    max_gap_risk: rule.maxGapRisk,
    min_liquidity: LANES.minLiquidity,
    rank_by: rule.rankBy,
  };
}

const percent = (fraction: number) => Math.round(fraction * 10_000) / 100;

export function engineRules(cadence: Cadence): EngineRules {
  return {
    atr_bars: WINDOWS.atr,
    stop: {
      atr_multiple: SETUP.stopAtr,
      pullback_lookback_bars: WINDOWS.reclaimLookback,
      pullback_buffer_atr: SETUP.pullbackBufferAtr,
      pullback_min_risk_atr: SETUP.pullbackMinRiskAtr,
      pullback_max_risk_atr: SETUP.pullbackMaxRiskAtr,
    },
    chandelier: { high_bars: WINDOWS.atrChandelier, atr_bars: WINDOWS.atrChandelier, atr_multiple: HOLD.chandelierAtr },
    targets_r: [...SETUP.targetsR],
    entry_window: {
      pullback_band_atr: { below: -STATE.pullbackLowAtr, above: STATE.pullbackHighAtr },
      pivot_bars: WINDOWS.breakoutLookback,
      pivot_above_atr: SETUP.pivotAboveAtr,
    },
    state_history_bars: STATE_HISTORY_BARS,
    lanes: { risk_adjusted: laneRule(LANES.riskAdjusted), swing: laneRule(LANES.swing) },
    regime: {
      // Strongest verdict first.
      ladder: [...RegimeVerdictCode.options].map((verdict) => ({ verdict, stance: STANCE_OF[verdict], ...LADDER[verdict] })),
      sector_sma_bars: WINDOWS.sma50,
      top_sectors: REGIME.selectiveTopSectors,
      sector_rs_bars: WINDOWS.r63,
      confirm_closes: REGIME.confirmCloses,
      equity: {
        index_sma_bars: WINDOWS.sma200,
        index_band_pct: percent(REGIME.band200),
        index_only_below_breadth_50: REGIME.indexOnlyBelowB50,
        sectors_on_below_breadth_50: REGIME.sectorsOnBelowB50,
        names_on_min_breadth_50: REGIME.namesOnMinB50,
        names_on_min_breadth_200: REGIME.namesOnMinB200,
      },
      crypto: { sma_bars: WINDOWS.sma50, band_pct: percent(REGIME.cryptoBand), sectors: [...CRYPTO_SECTORS] },
    },
    hold: { labels: HOLD_LABELS.map((l) => ({ label: l.label, min: l.min })) },
    conviction: { labels: CONVICTION.labels.map((l) => ({ label: l.label, min: l.min })), unpermitted_max: CONVICTION.unpermittedMax },
    cadence: {
      refresh_minutes: cadence.refreshMinutes,
      morning_lead_minutes: cadence.morningLeadMinutes,
      timezone: "America/New_York",
      crypto: "us_weekdays",
    },
  };
}
