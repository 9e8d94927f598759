// Why trading-signals (8.3.0): it is maintained (releases through 2026), written in TypeScript
// with types, and its ATR is Wilder's; technicalindicators, the other candidate, has not had a
// release since 2020.
//
// Library adapters: every moving average, ATR and rolling extreme the oracle reads comes from
// trading-signals (a kept npm library), never from the engine's scoring folder. A series is turned
// into a Line: one value per bar, `undefined` while the library is still warming up.
//
// Conventions, library against the engine's stated ones (measured in oracle.test.ts):
// - EMA: trading-signals seeds its EMA with the first input, as the engine states
//   (update() answers from the first bar; only getResultOrThrow waits for n inputs).
// - ATR: trading-signals' ATR is Wilder's (WSMA): the mean of the first n true ranges, then
//   prev + (tr - prev) / n, which is (prev (n-1) + tr) / n; the first bar's true range is high - low.
//   Identical to the engine's stated rule from bar n-1 on.
// - Warm-up: the engine shrinks a window to the bars that exist; the library gives nothing before
//   n bars. valueAt throws on a read inside a warm-up, so a clean run shows no compared figure can
//   depend on it (the boards have 340 bars; the earliest read is SMA200 at bar 199, intraday).
// - SMA and the rolling extremes are plain windows in both; the library's Wilder step
//   prev + (tr - prev) / n differs from (prev (n-1) + tr) / n only in the last bits.

import { ATR, DonchianChannels, EMA, SMA, getAverage, getCorrelation, getLinearRegression } from "trading-signals";
import type { Bar } from "../../src/market/provider.js";

/** One value per bar index; undefined while the indicator warms up. */
export type Line = readonly (number | undefined)[];

/** A line's value at bar t; a read inside the warm-up (or off the series) is an oracle bug: throw. */
export function valueAt(line: Line, t: number, what: string): number {
  const v = line[t];
  if (v === undefined || !Number.isFinite(v)) throw new Error(`oracle: ${what} has no value at bar ${t} (warm-up or out of range)`);
  return v;
}

/** The element at i of an array that must have it. */
export function at<T>(xs: readonly T[], i: number, what = "array"): T {
  const v = xs[i];
  if (v === undefined) throw new Error(`oracle: ${what} has no element ${i} (length ${xs.length})`);
  return v;
}

export function smaLine(values: readonly number[], n: number): Line {
  const sma = new SMA(n);
  return values.map((v) => sma.add(v) ?? undefined);
}

/** EMA seeded with the first value (trading-signals' own seeding). */
export function emaLine(values: readonly number[], n: number): Line {
  const ema = new EMA(n);
  return values.map((v) => ema.add(v) ?? undefined);
}

/** Wilder ATR over n bars. */
export function atrLine(bars: readonly Bar[], n: number): Line {
  const atr = new ATR(n);
  return bars.map((b) => atr.add({ high: b.high, low: b.low, close: b.close }) ?? undefined);
}

/** Highest high and lowest low of the n bars ending at each bar (Donchian channels). */
export function extremeLines(bars: readonly Bar[], n: number): { high: Line; low: Line } {
  const dc = new DonchianChannels(n);
  const high: (number | undefined)[] = [];
  const low: (number | undefined)[] = [];
  for (const b of bars) {
    const r = dc.add({ high: b.high, low: b.low });
    high.push(r?.upper);
    low.push(r?.lower);
  }
  return { high, low };
}

/** Arithmetic mean (trading-signals' getAverage). */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new Error("oracle: mean of nothing");
  return getAverage([...values]);
}

/** Least-squares line of values against 0..n-1: slope per bar and R squared (the squared correlation). */
export function regression(values: readonly number[]): { slope: number; r2: number } {
  const { slope } = getLinearRegression(values);
  const r = getCorrelation(
    values.map((_, i) => i),
    [...values],
  );
  return { slope, r2: r * r };
}

/**
 * The q-quantile with linear interpolation between closest ranks (Hyndman-Fan type 7, numpy's
 * default), the reading of "95th percentile" the oracle takes. trading-signals' getQuartile does the
 * same for other q, but its type admits only quartiles, hence this one line of our own.
 */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) throw new Error("oracle: quantile of nothing");
  const pos = (sorted.length - 1) * q;
  const base = Math.floor(pos);
  const lo = at(sorted, base);
  const hi = sorted[base + 1] ?? lo;
  return lo + (hi - lo) * (pos - base);
}
