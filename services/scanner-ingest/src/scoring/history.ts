// The close-by-close inputs of the regime hysteresis, read off the bar history: per date of the
// window, the book index's averages, the book's breadth on that date and the credit check.

import { barIndexOf, smaAt, type PreparedBars } from "./features.js";
import { PrefixSum } from "./indicators.js";
import type { EquityBar, TrendBar } from "./regime.js";
import { REGIME, WINDOWS } from "./weights.js";

/** A name's prepared bars and whether the last one is today's partial bar. */
export type Series = { bars: PreparedBars; partial: boolean };

/** Index of the last completed bar. */
export const completedEnd = (s: Series) => s.bars.close.length - 1 - (s.partial ? 1 : 0);

/** A ratio line num/den on the dates both share (the macro credit check, HYG/IEF). */
export class RatioLine {
  readonly #dates: string[] = [];
  readonly #ratio: number[] = [];
  readonly #sum: PrefixSum;

  constructor(num: PreparedBars, den: PreparedBars) {
    const d = new Map(den.dates.map((date, i) => [date, den.close[i]!]));
    num.dates.forEach((date, i) => {
      const dc = d.get(date);
      if (dc !== undefined) {
        this.#dates.push(date);
        this.#ratio.push(num.close[i]! / dc);
      }
    });
    this.#sum = new PrefixSum(this.#ratio);
  }

  /** Is the ratio on `date` above its average over the last `n` shared dates? False when `date` is not shared. */
  aboveAverage(date: string, n: number = WINDOWS.sma50): boolean {
    let q = this.#dates.length - 1;
    if (this.#dates[q] !== date) q = this.#dates.indexOf(date);
    if (q < 0) return false;
    return this.#ratio[q]! > this.#sum.meanAt(q, n);
  }
}

/** The book's index on bar `k`, with the members' breadth and the credit check on that date. */
export function equityBarAt(index: PreparedBars, k: number, members: readonly PreparedBars[], credit: RatioLine | null): EquityBar {
  const date = index.dates[k]!;
  const back = index.dates.length - 1 - k;
  let present = 0;
  let above50 = 0;
  let above200 = 0;
  for (const m of members) {
    const j = barIndexOf(m, date, m.dates.length - 1 - back);
    if (j < 0) continue;
    present++;
    const c = m.close[j]!;
    if (c > smaAt(m, j, WINDOWS.sma50)) above50++;
    if (c > smaAt(m, j, WINDOWS.sma200)) above200++;
  }
  return {
    date,
    close: index.close[k]!,
    sma50: smaAt(index, k, WINDOWS.sma50),
    sma200: smaAt(index, k, WINDOWS.sma200),
    sma200Past: smaAt(index, k - WINDOWS.sma200Slope, WINDOWS.sma200),
    breadth50: present === 0 ? 0 : (100 * above50) / present,
    breadth200: present === 0 ? 0 : (100 * above200) / present,
    creditOk: credit === null ? null : credit.aboveAverage(date),
  };
}

/** The equity regime's inputs: the index's last REGIME.window completed closes, and today's partial bar. */
export function equityRegimeBars(
  index: Series,
  members: readonly PreparedBars[],
  credit: RatioLine | null,
): { closes: EquityBar[]; partial: EquityBar | null } {
  const end = completedEnd(index);
  const closes: EquityBar[] = [];
  for (let k = Math.max(0, end - REGIME.window + 1); k <= end; k++) closes.push(equityBarAt(index.bars, k, members, credit));
  const partial = index.partial ? equityBarAt(index.bars, index.bars.close.length - 1, members, credit) : null;
  return { closes, partial };
}

const trendBarAt = (p: PreparedBars, k: number): TrendBar => ({ date: p.dates[k]!, close: p.close[k]!, sma50: smaAt(p, k, WINDOWS.sma50) });

/** A crypto asset's last REGIME.window completed UTC closes with their 50-day averages, and today's partial bar. */
export function trendBars(s: Series): { closes: TrendBar[]; partial: TrendBar | null } {
  const end = completedEnd(s);
  const closes: TrendBar[] = [];
  for (let k = Math.max(0, end - REGIME.window + 1); k <= end; k++) closes.push(trendBarAt(s.bars, k));
  return { closes, partial: s.partial ? trendBarAt(s.bars, s.bars.close.length - 1) : null };
}
