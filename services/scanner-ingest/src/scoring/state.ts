// Entry state (SCORING.md, first match wins) and the trend template it leans on.

import type { EntryState, HoldLabel, LiquidityTier } from "@board/proto";
import type { Technicals } from "./features.js";
import { HOLD_LABELS, LIQUIDITY, STATE, TREND_TEMPLATE as TT } from "./weights.js";

/** The trend template: how many of its eight rules the bar meets (0..8). */
export function trendTemplate(t: Technicals, rsPct: number): number {
  const rules = [
    t.close > t.sma150 && t.close > t.sma200,
    t.sma150 > t.sma200,
    t.sma200 > t.sma200PastTT,
    t.sma50 > t.sma150 && t.sma50 > t.sma200,
    t.close > t.sma50,
    t.close >= TT.aboveLow * t.low252,
    t.close >= TT.nearHigh * t.high252,
    rsPct >= TT.rsPct,
  ];
  return rules.filter(Boolean).length;
}

/** up = C > SMA50 > SMA200. */
export function isUp(t: Technicals): boolean {
  return t.close > t.sma50 && t.sma50 > t.sma200;
}

/** C within -0.5..+1.5 ATR of EMA21 after reclaiming EMA21. */
export function isPullback(t: Technicals): boolean {
  const d = (t.close - t.ema21) / t.atr;
  return t.reclaimed && d >= STATE.pullbackLowAtr && d <= STATE.pullbackHighAtr;
}

/** The entry state of a bar given its trend-template count. */
export function entryState(t: Technicals, tt: number): EntryState {
  if (t.close < t.sma50 && (t.sma50 < t.sma50Past || t.close < t.sma200)) return "FALLING";
  const up = isUp(t);
  if (up && (t.close - t.sma20) / t.atr > STATE.chaseAtr) return "CHASE";
  if (up && tt >= STATE.readyMinTT && (isPullback(t) || t.breakout)) return "READY";
  if (tt >= STATE.setupMinTT && t.tight) return "SETUP";
  return "WAIT";
}

export function holdLabel(holdQ: number): HoldLabel {
  return (HOLD_LABELS.find((l) => holdQ >= l.min) ?? HOLD_LABELS[HOLD_LABELS.length - 1]!).label;
}

export function liquidityTier(adv20Usd: number): LiquidityTier {
  return (LIQUIDITY.find((l) => adv20Usd >= l.min) ?? LIQUIDITY[LIQUIDITY.length - 1]!).tier;
}

/** A better-or-equal comparison of tiers (A best). */
export function tierAtLeast(tier: LiquidityTier, floor: LiquidityTier): boolean {
  return tier <= floor;
}
