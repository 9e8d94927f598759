// Per-name technical features from daily bars: everything a rule reads about one name on one bar,
// before any cross-sectional ranking.

import type { Bar } from "../market/provider.js";
import {
  PrefixSum,
  emaSeries,
  logRegression,
  quantile,
  returnOver,
  rollingExtreme,
  trueRanges,
  wilderAtrSeries,
} from "./indicators.js";
import { GAP_QUANTILE, RS_WEIGHTS, STATE, WINDOWS as W } from "./weights.js";

/** A name's bars as columns, with the series the rules read precomputed once. */
export type PreparedBars = {
  dates: string[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
  closeSum: PrefixSum;
  volumeSum: PrefixSum;
  ema21: number[];
  atr: number[];
  atrShort: number[];
  atrLong: number[];
  atrChandelier: number[];
  /** Highest high and lowest low of the WINDOWS.highLow bars ending at each bar. */
  high252: number[];
  low252: number[];
  /** The same over the breakout lookback, the tight range and the chandelier windows. */
  highBreakout: number[];
  highRange: number[];
  lowRange: number[];
  highChandelier: number[];
};

export function prepareBars(bars: readonly Bar[]): PreparedBars {
  const n = bars.length;
  const dates = new Array<string>(n);
  const open = new Array<number>(n);
  const high = new Array<number>(n);
  const low = new Array<number>(n);
  const close = new Array<number>(n);
  const volume = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const b = bars[i]!;
    dates[i] = b.date;
    open[i] = b.open;
    high[i] = b.high;
    low[i] = b.low;
    close[i] = b.close;
    volume[i] = b.volume;
  }
  const tr = trueRanges(high, low, close);
  return {
    dates,
    open,
    high,
    low,
    close,
    volume,
    closeSum: new PrefixSum(close),
    volumeSum: new PrefixSum(volume),
    ema21: emaSeries(close, W.ema21),
    atr: wilderAtrSeries(tr, W.atr),
    atrShort: wilderAtrSeries(tr, W.atrShort),
    atrLong: wilderAtrSeries(tr, W.atrLong),
    atrChandelier: wilderAtrSeries(tr, W.atrChandelier),
    high252: rollingExtreme(high, W.highLow, 1),
    low252: rollingExtreme(low, W.highLow, -1),
    highBreakout: rollingExtreme(high, W.breakoutLookback, 1),
    highRange: rollingExtreme(high, W.tightRange, 1),
    lowRange: rollingExtreme(low, W.tightRange, -1),
    highChandelier: rollingExtreme(high, W.atrChandelier, 1),
  };
}

/** The technical read of one name on one bar. */
export type Technicals = {
  date: string;
  close: number;
  chgPct: number;
  sma20: number;
  sma50: number;
  sma150: number;
  sma200: number;
  /** SMA50 `sma50Slope` bars ago. */
  sma50Past: number;
  /** SMA200 21 bars ago (trend template). */
  sma200PastTT: number;
  /** SMA200 20 bars ago (hold strength, regime). */
  sma200Past: number;
  ema21: number;
  atr: number;
  atrShort: number;
  atrLong: number;
  /** Chandelier stop: highest high of 22 bars minus 3 ATR22 (the multiple comes from HOLD). */
  highestHighChandelier: number;
  atrChandelier: number;
  high252: number;
  low252: number;
  r63: number;
  r126: number;
  r189: number;
  r252: number;
  /** Relative strength: 0.4 r63 + 0.2 r126 + 0.2 r189 + 0.2 r252 (RS_WEIGHTS). */
  rs: number;
  /** Close over the 252-day high (1 at the high). */
  nearHigh: number;
  /** The highest high of the 20 bars before this one: the level a breakout clears (its pivot). */
  priorHigh: number;
  /** Close above the prior 20-day high on volume >= 1.5 x its prior 20-day average. */
  breakout: boolean;
  /** A close below EMA21 followed by a close above it within the last `reclaimLookback` bars. */
  reclaimed: boolean;
  /** ATR10/ATR50 below 0.8, or the 20-day range below 3 ATR. */
  tight: boolean;
  volumeShort: number;
  volumeLong: number;
};

function reclaimedEma(p: PreparedBars, e: number): boolean {
  let below = false;
  for (let i = Math.max(0, e - W.reclaimLookback); i <= e; i++) {
    if (p.close[i]! < p.ema21[i]!) below = true;
    else if (below && p.close[i]! > p.ema21[i]!) return true;
  }
  return false;
}

/** The `n`-bar simple average of closes ending at bar `e` (shorter at the start of the series). */
export function smaAt(p: PreparedBars, e: number, n: number): number {
  return p.closeSum.meanAt(Math.max(0, e), n);
}

/**
 * Index of the bar dated `date` in `p`, or -1. `hint` is where it is expected (series on the same
 * calendar line up from the end), so the common case costs one comparison; otherwise a binary search.
 */
export function barIndexOf(p: PreparedBars, date: string, hint: number): number {
  if (hint >= 0 && hint < p.dates.length && p.dates[hint] === date) return hint;
  let lo = 0;
  let hi = p.dates.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const d = p.dates[mid]!;
    if (d === date) return mid;
    if (d < date) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Technicals of bar `e` (0-based index into the prepared bars). */
export function technicalsAt(p: PreparedBars, e: number): Technicals {
  const close = p.close[e]!;
  const prevClose = e > 0 ? p.close[e - 1]! : close;
  const sma = (end: number, n: number) => p.closeSum.meanAt(Math.max(0, end), n);
  const r63 = returnOver(p.close, e, W.r63);
  const r126 = returnOver(p.close, e, W.r126);
  const r189 = returnOver(p.close, e, W.r189);
  const r252 = returnOver(p.close, e, W.r252);
  const high252 = p.high252[e]!;
  const atr = p.atr[e]!;
  let breakout = false;
  // The first bar has no prior range: its own high stands in, and it cannot break out.
  const priorHigh = e > 0 ? p.highBreakout[e - 1]! : p.high[e]!;
  if (e > 0) {
    const priorVolume = p.volumeSum.meanAt(e - 1, W.volumeAvg);
    breakout = close > priorHigh && p.volume[e]! >= STATE.breakoutVolume * priorVolume;
  }
  const range = p.highRange[e]! - p.lowRange[e]!;
  return {
    date: p.dates[e]!,
    close,
    chgPct: (close / prevClose - 1) * 100,
    sma20: sma(e, W.sma20),
    sma50: sma(e, W.sma50),
    sma150: sma(e, W.sma150),
    sma200: sma(e, W.sma200),
    sma50Past: sma(e - W.sma50Slope, W.sma50),
    sma200PastTT: sma(e - W.sma200SlopeTT, W.sma200),
    sma200Past: sma(e - W.sma200Slope, W.sma200),
    ema21: p.ema21[e]!,
    atr,
    atrShort: p.atrShort[e]!,
    atrLong: p.atrLong[e]!,
    highestHighChandelier: p.highChandelier[e]!,
    atrChandelier: p.atrChandelier[e]!,
    high252,
    low252: p.low252[e]!,
    r63,
    r126,
    r189,
    r252,
    rs: RS_WEIGHTS.r63 * r63 + RS_WEIGHTS.r126 * r126 + RS_WEIGHTS.r189 * r189 + RS_WEIGHTS.r252 * r252,
    nearHigh: close / high252,
    priorHigh,
    breakout,
    reclaimed: reclaimedEma(p, e),
    tight: p.atrShort[e]! / p.atrLong[e]! < STATE.tightAtrRatio || range < STATE.tightRangeAtr * atr,
    volumeShort: p.volumeSum.meanAt(e, W.volumeShort),
    volumeLong: p.volumeSum.meanAt(e, W.volumeLong),
  };
}

/** Raw growth: the annualised slope of the 90-bar log-regression times its R squared. */
export function growthRaw(p: PreparedBars, e: number, barsPerYear: number): number {
  const { slope, r2 } = logRegression(p.close, e, W.regression);
  return slope * barsPerYear * r2;
}

/** Raw gap risk: the 95th percentile of |ln(O / previous C)| over 252 bars, divided by ATR%. */
export function gapRaw(p: PreparedBars, e: number): number {
  const gaps: number[] = [];
  for (let i = Math.max(1, e - W.gapLookback + 1); i <= e; i++) gaps.push(Math.abs(Math.log(p.open[i]! / p.close[i - 1]!)));
  const atrPct = p.atr[e]! / p.close[e]!;
  return gaps.length === 0 || atrPct <= 0 ? Number.NaN : quantile(gaps, GAP_QUANTILE) / atrPct;
}

/** Mean dollar volume (close x volume) of the `n` bars ending at `end`. */
export function averageDollarVolume(p: PreparedBars, end: number, n: number): number {
  const from = Math.max(0, end - n + 1);
  let sum = 0;
  for (let i = from; i <= end; i++) sum += p.close[i]! * p.volume[i]!;
  return end < from ? 0 : sum / (end - from + 1);
}
