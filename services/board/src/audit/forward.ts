import { addTradingDays } from "@board/market-calendar";
import type { DailyMarks } from "../proof/marks.js";

export interface MarkedDay {
  asofDaily: string;
  computedAt: Date;
  committedAt: Date;
  marks: DailyMarks;
}

/**
 * Pairs of (day, the day `sessions` trading days later) where the earlier board was
 * committed before the later board's prices existed: only genuine pre-commitments count.
 */
export function forwardPairs(days: MarkedDay[], sessions: number): [MarkedDay, MarkedDay][] {
  const byDate = new Map(days.map((d) => [d.asofDaily, d]));
  const pairs: [MarkedDay, MarkedDay][] = [];
  for (const from of days) {
    const to = byDate.get(addTradingDays(from.asofDaily, sessions));
    if (to && from.committedAt.getTime() < to.computedAt.getTime()) pairs.push([from, to]);
  }
  return pairs;
}

/** Simple return of a symbol between two marked days, or null when either side lacks it. */
export function returnOf(sym: string | undefined, from: MarkedDay, to: MarkedDay): number | null {
  if (!sym) return null;
  const a = from.marks.names[sym]?.[0];
  const b = to.marks.names[sym]?.[0];
  return a && b ? b / a - 1 : null;
}

export const pct = (x: number) => Math.round(x * 10000) / 100;
