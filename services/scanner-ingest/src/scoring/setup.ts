// A name's setup (SCORING.md lanes, carried to every name for the live tier): structural stop,
// entry window, targets at R multiples, chandelier stop and conviction. The lanes price their
// entries with the same levels, so a lane and the live feed never disagree.

import type {
  BookCode,
  ConvictionLabel,
  EngineSetup,
  EntryBasis,
  EntryState,
  HoldLabel,
  LiquidityTier,
  SetupRefusal,
  StopBasis,
  Trigger,
} from "@board/proto";
import type { PreparedBars, Technicals } from "./features.js";
import { minOver } from "./indicators.js";
import { isPullback, tierAtLeast } from "./state.js";
import { CONVICTION, HOLD, LANES, SETUP, STATE, WINDOWS } from "./weights.js";

export type StructuralStop = { price: number; basis: StopBasis };

/**
 * Below the pullback low (the lowest low of the reclaim window, less a buffer) when the bar is a
 * pullback and that stop lies SETUP.pullbackMinRiskAtr..pullbackMaxRiskAtr ATR under the close
 * (tighter is noise, wider is no structure); otherwise SETUP.stopAtr ATR under the close.
 */
export function structuralStop(p: PreparedBars, e: number, t: Technicals): StructuralStop {
  if (t.atr > 0 && isPullback(t)) {
    const price = minOver(p.low, e, WINDOWS.reclaimLookback) - SETUP.pullbackBufferAtr * t.atr;
    const riskAtr = (t.close - price) / t.atr;
    if (riskAtr >= SETUP.pullbackMinRiskAtr && riskAtr <= SETUP.pullbackMaxRiskAtr) return { price, basis: "pullback_low" };
  }
  return { price: t.close - SETUP.stopAtr * t.atr, basis: "atr" };
}

/** The chandelier stop: highest high of its window less HOLD.chandelierAtr of its ATR (the hold read's line). */
export function chandelierStop(t: Technicals): number {
  return t.highestHighChandelier - HOLD.chandelierAtr * t.atrChandelier;
}

/** A setup's levels before rounding: risk per share is close minus stop; targets at each SETUP.targetsR multiple. */
export type Levels = { stop: number; risk: number; targets: number[] };

export function levelsOf(close: number, stop: number): Levels {
  const risk = close - stop;
  return { stop, risk, targets: SETUP.targetsR.map((r) => close + r * risk) };
}

export type Window = { low: number; high: number; basis: EntryBasis };

/**
 * The entry window from the trigger's pivot (SETUP): a pullback's band around EMA21 on its trigger
 * bar, a breakout's pivot (the prior 20-day high) up to SETUP.pivotAboveAtr ATR above it, or for a
 * SETUP the pivot it must clear. A READY name whose trigger is older than the state history reads
 * the band on today's bar. Null for any other state. Never below the stop.
 */
export function entryWindowOf(state: EntryState, trigger: Trigger | null, triggerBar: Technicals | null, today: Technicals, stop: number): Window | null {
  let w: Window;
  if (state === "SETUP") {
    w = { low: today.priorHigh, high: today.priorHigh + SETUP.pivotAboveAtr * today.atr, basis: "setup_pivot" };
  } else if (state === "READY" && trigger === "breakout" && triggerBar) {
    w = { low: triggerBar.priorHigh, high: triggerBar.priorHigh + SETUP.pivotAboveAtr * triggerBar.atr, basis: "breakout_pivot" };
  } else if (state === "READY") {
    const t = triggerBar ?? today;
    w = { low: t.ema21 + STATE.pullbackLowAtr * t.atr, high: t.ema21 + STATE.pullbackHighAtr * t.atr, basis: "pullback_band" };
  } else {
    return null;
  }
  return { ...w, low: Math.max(w.low, stop) };
}

/** Why a name is not a permitted long setup, the first that applies; null when it is one. */
export function refusalOf(x: { state: EntryState; permitted: boolean; liquidity: LiquidityTier; hold_label: HoldLabel }): SetupRefusal | null {
  if (x.state === "FALLING") return "state_falling";
  if (x.state === "CHASE") return "state_chase";
  if (x.state === "WAIT") return "state_wait";
  if (!x.permitted) return "not_permitted_by_regime";
  if (!tierAtLeast(x.liquidity, LANES.minLiquidity)) return "illiquid";
  if (x.hold_label === "EXIT") return "hold_exit";
  return null;
}

/** Prices on the wire: cents, never below one cent. */
export const cents = (x: number) => Math.max(0.01, Math.round(x * 100) / 100);
export const atrPct = (atr: number, close: number) => Math.round((atr / close) * 10_000) / 100;

export type ConvictionInput = {
  opp_score: number;
  entry_q: number;
  hold_q: number;
  state: EntryState;
  is_leader: boolean;
  /** Some book's permission ladder lets the name be bought now. */
  permitted: boolean;
};

export function convictionLabel(score: number): ConvictionLabel {
  return (CONVICTION.labels.find((l) => score >= l.min) ?? CONVICTION.labels[CONVICTION.labels.length - 1]!).label;
}

/** Conviction 0-100 (an integer) and its label; see CONVICTION. */
export function convictionOf(x: ConvictionInput): { score: number; label: ConvictionLabel } {
  const w = CONVICTION.weights;
  const raw =
    100 *
    ((w.opportunity * x.opp_score) / 100 +
      (w.entry * x.entry_q) / 100 +
      (w.hold * x.hold_q) / 100 +
      w.state * CONVICTION.state[x.state] +
      w.leader * (x.is_leader ? 1 : 0));
  const bounded = Math.round(Math.min(100, Math.max(0, raw)));
  const score = x.permitted ? bounded : Math.min(bounded, CONVICTION.unpermittedMax);
  return { score, label: convictionLabel(score) };
}

export type SetupInput = Omit<ConvictionInput, "permitted"> & {
  sym: string;
  close: number;
  atr: number;
  stop: StructuralStop;
  chandelier: number;
  liquidity: LiquidityTier;
  hold_label: HoldLabel;
  trigger: Trigger | null;
  triggerBar: Technicals | null;
  today: Technicals;
  /** The books whose ladder permits the name. */
  permitted: readonly BookCode[];
};

/** One name's engine setup as the snapshot carries it: levels only for a permitted long setup. */
export function setupOf(x: SetupInput): EngineSetup {
  const conviction = convictionOf({ ...x, permitted: x.permitted.length > 0 });
  const refusal = refusalOf({ ...x, permitted: x.permitted.length > 0 });
  const window = refusal === null ? entryWindowOf(x.state, x.trigger, x.triggerBar, x.today, x.stop.price) : null;
  const lv = window ? levelsOf(x.close, x.stop.price) : null;
  return {
    sym: x.sym,
    atr: Math.round(x.atr * 10_000) / 10_000,
    atr_pct: atrPct(x.atr, x.close),
    entry_window: window && { low: cents(window.low), high: cents(window.high) },
    entry_basis: window && window.basis,
    stop: lv && cents(lv.stop),
    stop_basis: lv && x.stop.basis,
    chandelier_stop: cents(x.chandelier),
    risk_per_share: lv && Math.max(0, Math.round(lv.risk * 100) / 100),
    targets: lv && lv.targets.map(cents),
    conviction: conviction.score,
    conviction_label: conviction.label,
    permitted: [...x.permitted],
    refusal,
  };
}
