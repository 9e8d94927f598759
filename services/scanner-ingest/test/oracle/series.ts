// One name's bars and the book-independent readings of them (SCORING.md "Per name" and "Entry
// state"), each rule written from the methodology documents. A percentile needs the book, so
// everything that ranks lives in score.ts; here are only the raw figures and the bar predicates.
//
// Readings chosen where SCORING.md / docs/methodology.md leave room (the most literal one; see the
// report in oracle.test.ts):
// - H252 / L252: highest high / lowest low of the 252 bars ending at the bar (bar highs and lows).
// - "SMA200 above its value 21 days ago": SMA200(t) > SMA200(t - 21); "rising over 20 days":
//   SMA200(t) > SMA200(t - 20); "SMA50 falling over 10 days": SMA50(t) < SMA50(t - 10).
// - Pullback: -0.5 ATR <= C - EMA21 <= +1.5 ATR, after a reclaim of EMA21 within the last
//   WINDOWS.reclaimLookback (10) bars: some bar j in [t-9, t] closed at or above EMA21 after a
//   close below it on bar j-1.
// - Breakout (docs/methodology.md, the light): C > max high of the 20 bars before t, and volume >= 1.5 x their mean volume.
// - Tight range: ATR10/ATR50 < 0.8, or the 20-bar range (max high - min low, bar t included) < 3 ATR.
// - Every ATR is Wilder's 14-bar ATR unless a window is named (ATR10, ATR50, ATR22).

import type { EntryState } from "@board/proto";
import type { Bar } from "../../src/market/provider.js";
import type { UniverseEntry } from "../../src/universe.js";
import { ENTRY_Q, GAP_QUANTILE, HOLD, RS_WEIGHTS, STATE, TREND_TEMPLATE, WINDOWS, YEAR_BARS } from "../../src/scoring/weights.js";
import { at, atrLine, emaLine, extremeLines, mean, quantile, regression, smaLine, valueAt, type Line } from "./indicators.js";

export class NameSeries {
  readonly sym: string;
  readonly n: number;
  /** Index of the last bar (intraday: today's partial bar). */
  readonly last: number;
  readonly dates: readonly string[];
  readonly open: readonly number[];
  readonly high: readonly number[];
  readonly low: readonly number[];
  readonly close: readonly number[];
  readonly volume: readonly number[];
  readonly sma20: Line;
  readonly sma50: Line;
  readonly sma150: Line;
  readonly sma200: Line;
  readonly ema21: Line;
  readonly atr: Line;
  readonly atr10: Line;
  readonly atr50: Line;
  readonly atr22: Line;
  readonly vol20: Line;
  readonly hi252: Line;
  readonly lo252: Line;
  readonly hi20: Line;
  readonly lo20: Line;
  readonly hi22: Line;
  readonly lo10: Line;
  readonly #dateIndex: Map<string, number>;

  constructor(
    readonly entry: UniverseEntry,
    readonly bars: readonly Bar[],
    /** True when the last bar is the day in progress. */
    readonly partial: boolean,
  ) {
    this.sym = entry.sym;
    this.n = bars.length;
    this.last = bars.length - 1;
    if (this.n < 2) throw new Error(`oracle: ${entry.sym} has ${this.n} bars`);
    this.dates = bars.map((b) => b.date);
    this.open = bars.map((b) => b.open);
    this.high = bars.map((b) => b.high);
    this.low = bars.map((b) => b.low);
    this.close = bars.map((b) => b.close);
    this.volume = bars.map((b) => b.volume);
    this.#dateIndex = new Map(this.dates.map((d, i) => [d, i]));
    this.sma20 = smaLine(this.close, WINDOWS.sma20);
    this.sma50 = smaLine(this.close, WINDOWS.sma50);
    this.sma150 = smaLine(this.close, WINDOWS.sma150);
    this.sma200 = smaLine(this.close, WINDOWS.sma200);
    this.ema21 = emaLine(this.close, WINDOWS.ema21);
    this.atr = atrLine(bars, WINDOWS.atr);
    this.atr10 = atrLine(bars, WINDOWS.atrShort);
    this.atr50 = atrLine(bars, WINDOWS.atrLong);
    this.atr22 = atrLine(bars, WINDOWS.atrChandelier);
    this.vol20 = smaLine(this.volume, WINDOWS.volumeAvg);
    ({ high: this.hi252, low: this.lo252 } = extremeLines(bars, WINDOWS.highLow));
    ({ high: this.hi20, low: this.lo20 } = extremeLines(bars, WINDOWS.breakoutLookback));
    this.hi22 = extremeLines(bars, WINDOWS.atrChandelier).high;
    this.lo10 = extremeLines(bars, WINDOWS.reclaimLookback).low;
  }

  /** The bar index of a date, or undefined. */
  indexOf(date: string): number | undefined {
    return this.#dateIndex.get(date);
  }

  v(line: Line, t: number, what: string): number {
    return valueAt(line, t, `${this.sym} ${what}`);
  }

  c(t: number): number {
    return at(this.close, t, `${this.sym} close`);
  }

  /** rN = C(t) / C(t - N) - 1. */
  ret(N: number, t: number): number {
    if (t - N < 0) throw new Error(`oracle: ${this.sym} r${N} at bar ${t} reaches before the first bar`);
    return this.c(t) / this.c(t - N) - 1;
  }

  /** RS = 0.4 r63 + 0.2 r126 + 0.2 r189 + 0.2 r252. */
  rs(t: number): number {
    return (
      RS_WEIGHTS.r63 * this.ret(WINDOWS.r63, t) +
      RS_WEIGHTS.r126 * this.ret(WINDOWS.r126, t) +
      RS_WEIGHTS.r189 * this.ret(WINDOWS.r189, t) +
      RS_WEIGHTS.r252 * this.ret(WINDOWS.r252, t)
    );
  }

  /** The seven trend-template rules that need no percentile (the eighth is rs_pct >= 70). */
  ttBase(t: number): number {
    const C = this.c(t);
    const s50 = this.v(this.sma50, t, "SMA50");
    const s150 = this.v(this.sma150, t, "SMA150");
    const s200 = this.v(this.sma200, t, "SMA200");
    const s200ago = this.v(this.sma200, t - WINDOWS.sma200SlopeTT, "SMA200 21 bars back");
    const rules = [
      C > s150 && C > s200,
      s150 > s200,
      s200 > s200ago,
      s50 > s150 && s50 > s200,
      C > s50,
      C >= TREND_TEMPLATE.aboveLow * this.v(this.lo252, t, "L252"),
      C >= TREND_TEMPLATE.nearHigh * this.v(this.hi252, t, "H252"),
    ];
    return rules.filter(Boolean).length;
  }

  /** up = C > SMA50 > SMA200. */
  up(t: number): boolean {
    const s50 = this.v(this.sma50, t, "SMA50");
    return this.c(t) > s50 && s50 > this.v(this.sma200, t, "SMA200");
  }

  falling(t: number): boolean {
    const C = this.c(t);
    const s50 = this.v(this.sma50, t, "SMA50");
    if (!(C < s50)) return false;
    return s50 < this.v(this.sma50, t - WINDOWS.sma50Slope, "SMA50 10 bars back") || C < this.v(this.sma200, t, "SMA200");
  }

  chase(t: number): boolean {
    return this.up(t) && (this.c(t) - this.v(this.sma20, t, "SMA20")) / this.v(this.atr, t, "ATR") > STATE.chaseAtr;
  }

  /** C within -0.5..+1.5 ATR of EMA21 on bar t. */
  inPullbackBand(t: number): boolean {
    const d = this.c(t) - this.v(this.ema21, t, "EMA21");
    const a = this.v(this.atr, t, "ATR");
    return d >= STATE.pullbackLowAtr * a && d <= STATE.pullbackHighAtr * a;
  }

  /** A close reclaimed EMA21 (below on j-1, at or above on j) on some bar j of the last 10 bars. */
  reclaimed(t: number): boolean {
    for (let j = t - WINDOWS.reclaimLookback + 1; j <= t; j++) {
      const below = this.c(j - 1) < this.v(this.ema21, j - 1, "EMA21");
      if (below && this.c(j) >= this.v(this.ema21, j, "EMA21")) return true;
    }
    return false;
  }

  pullback(t: number): boolean {
    return this.inPullbackBand(t) && this.reclaimed(t);
  }

  /** The prior 20-bar high (the 20 bars before t): the breakout pivot. */
  pivot(t: number): number {
    return this.v(this.hi20, t - 1, "20-bar high before the bar");
  }

  breakout(t: number): boolean {
    const volAvg = this.v(this.vol20, t - 1, "20-bar volume mean before the bar");
    return this.c(t) > this.pivot(t) && at(this.volume, t) >= STATE.breakoutVolume * volAvg;
  }

  tight(t: number): boolean {
    const a = this.v(this.atr, t, "ATR");
    const ratio = this.v(this.atr10, t, "ATR10") / this.v(this.atr50, t, "ATR50");
    const range = this.v(this.hi20, t, "20-bar high") - this.v(this.lo20, t, "20-bar low");
    return ratio < STATE.tightAtrRatio || range < STATE.tightRangeAtr * a;
  }

  /** The entry state on bar t given its trend-template count (first match wins). */
  state(t: number, tt: number): EntryState {
    if (this.falling(t)) return "FALLING";
    if (this.chase(t)) return "CHASE";
    if (this.up(t) && tt >= STATE.readyMinTT && (this.pullback(t) || this.breakout(t))) return "READY";
    if (tt >= STATE.setupMinTT && this.tight(t)) return "SETUP";
    return "WAIT";
  }

  // -- figures of the last bar ------------------------------------------------------------------

  get price(): number {
    return this.c(this.last);
  }

  /** Day percent change: the last bar's close against the one before. */
  get chgPct(): number {
    return (this.c(this.last) / this.c(this.last - 1) - 1) * 100;
  }

  get atrLast(): number {
    return this.v(this.atr, this.last, "ATR");
  }

  /** ATR as a fraction of the close. */
  get atrFrac(): number {
    return this.atrLast / this.price;
  }

  aboveSma50(): boolean {
    return this.price > this.v(this.sma50, this.last, "SMA50");
  }

  /** C / H252. */
  get nearHigh(): number {
    return this.price / this.v(this.hi252, this.last, "H252");
  }

  /** ATR10 / ATR50 (its percentile is the tightness). */
  get atrRatio(): number {
    return this.v(this.atr10, this.last, "ATR10") / this.v(this.atr50, this.last, "ATR50");
  }

  /** 1 - V10 / V50, the volumes' means over the last 10 and 50 bars. */
  get volumeDryUp(): number {
    const v = this.volume;
    return 1 - mean(v.slice(v.length - WINDOWS.volumeShort)) / mean(v.slice(v.length - WINDOWS.volumeLong));
  }

  /** 1 - min(1, |C - EMA21| / 3 ATR). */
  get emaCloseness(): number {
    const d = Math.abs(this.price - this.v(this.ema21, this.last, "EMA21"));
    return 1 - Math.min(1, d / (ENTRY_Q.emaAtr * this.atrLast));
  }

  /** Annualised slope of the least-squares line through ln C of the last 90 bars, times its R squared. */
  get growthRaw(): number {
    const logs = this.close.slice(this.n - WINDOWS.regression).map(Math.log);
    if (logs.length < WINDOWS.regression) throw new Error(`oracle: ${this.sym} has fewer than ${WINDOWS.regression} bars for growth`);
    const { slope, r2 } = regression(logs);
    const year = this.entry.kind === "crypto" ? YEAR_BARS.crypto : YEAR_BARS.equity;
    return slope * year * r2;
  }

  /** 95th percentile of |ln(O(t) / C(t-1))| over the last 252 bars, divided by ATR%. */
  get gapRaw(): number {
    const gaps: number[] = [];
    for (let t = this.last - WINDOWS.gapLookback + 1; t <= this.last; t++) gaps.push(Math.abs(Math.log(at(this.open, t) / this.c(t - 1))));
    return quantile(gaps, GAP_QUANTILE) / this.atrFrac;
  }

  /** Highest high of 22 bars less 3 ATR22. */
  get chandelier(): number {
    return this.v(this.hi22, this.last, "22-bar high") - HOLD.chandelierAtr * this.v(this.atr22, this.last, "ATR22");
  }

  /** The hold points that need no percentile (all but 15 rs_pct/99). */
  get holdPoints(): number {
    const t = this.last;
    const C = this.price;
    const s50 = this.v(this.sma50, t, "SMA50");
    const s200 = this.v(this.sma200, t, "SMA200");
    return (
      (C > s50 ? HOLD.aboveSma50 : 0) +
      (s50 > s200 ? HOLD.sma50AboveSma200 : 0) +
      (C > this.chandelier ? HOLD.aboveChandelier : 0) +
      (s200 > this.v(this.sma200, t - WINDOWS.sma200Slope, "SMA200 20 bars back") ? HOLD.sma200Rising : 0)
    );
  }

  /** Mean of close x volume over the last 20 completed sessions (intraday, today's partial bar is left out). */
  get adv20(): number {
    const end = this.partial ? this.n - 1 : this.n;
    const t0 = end - WINDOWS.adv;
    return mean(this.close.slice(t0, end).map((c, i) => c * at(this.volume, t0 + i)));
  }

  /** The last bar's close x volume. */
  get dollarVolume(): number {
    return this.price * at(this.volume, this.last);
  }

  /** Lowest low of the last 10 bars (the pullback low of the structural stop). */
  get pullbackLow(): number {
    return this.v(this.lo10, this.last, "10-bar low");
  }
}
