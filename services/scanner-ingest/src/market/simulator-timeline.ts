// The simulator's timeline: every calendar day from its origin, and which of them are trading days
// (the market calendar's sessions), extended as later dates are asked for.

import { isTradingDay } from "@board/market-calendar";
import { fromEpochDay } from "./days.js";

/** A request further than this past the origin is a bug, not a wish for 300 years of bars. */
const MAX_SPAN_DAYS = 366 * 40;

export class Timeline {
  readonly tradingDays: number[] = [];
  readonly tradingDates: string[] = [];
  readonly calendarDates: string[] = [];
  /** Per calendar index: trading days on or before that day. */
  readonly tradingThrough: number[] = [];
  /** Per calendar index: that day's trading index, or -1. */
  readonly tradingIndexOf: number[] = [];

  constructor(readonly origin: number) {}

  extendTo(day: number): void {
    if (day - this.origin > MAX_SPAN_DAYS) throw new RangeError(`simulator: ${fromEpochDay(day)} is too far past the origin`);
    for (let d = this.origin + this.calendarDates.length; d <= day; d++) {
      const date = fromEpochDay(d);
      this.calendarDates.push(date);
      if (isTradingDay(date)) {
        this.tradingIndexOf.push(this.tradingDays.length);
        this.tradingDays.push(d);
        this.tradingDates.push(date);
      } else {
        this.tradingIndexOf.push(-1);
      }
      this.tradingThrough.push(this.tradingDays.length);
    }
  }
}
