// Per-date calendar facts (weekday, holiday, session bounds in epoch millis), computed once per date
// and cached: this is what makes a freshness block cost microseconds instead of luxon work.

import { BoundedCache } from "./cache.js";
import { civilFromDays, fromEpochDay, isoWeekday } from "./dates.js";
import { earlyClose, holidayName } from "./holidays.js";
import { newYorkMillis } from "./time.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** A session as epoch millis; `midnightMs` anchors the refresh grid (no DST switch on weekdays). */
export type SessionMs = {
  date: string;
  openMs: number;
  closeMs: number;
  early: boolean;
  midnightMs: number;
};

export type DayInfo = {
  date: string;
  epochDay: number;
  weekday: number; // ISO: 1 = Monday ... 7 = Sunday
  holiday: string | null;
  session: SessionMs | null;
};

const infoCache = new BoundedCache<number, DayInfo>(4096);
const midnightCache = new BoundedCache<number, number>(4096);

function midnightMs(epochDay: number): number {
  const cached = midnightCache.get(epochDay);
  if (cached !== undefined) return cached;
  const { year, month, day } = civilFromDays(epochDay);
  return midnightCache.set(epochDay, newYorkMillis(year, month, day, 0, 0));
}

export function dayInfoOf(epochDay: number): DayInfo {
  const cached = infoCache.get(epochDay);
  if (cached) return cached;
  const date = fromEpochDay(epochDay);
  const weekday = isoWeekday(epochDay);
  const holiday = weekday <= 5 ? holidayName(date) : null;
  let session: SessionMs | null = null;
  if (weekday <= 5 && holiday === null) {
    const { year, month, day } = civilFromDays(epochDay);
    const early = earlyClose(date);
    session = {
      date,
      openMs: newYorkMillis(year, month, day, 9, 30),
      closeMs: newYorkMillis(year, month, day, early ? 13 : 16, 0),
      early,
      midnightMs: midnightMs(epochDay),
    };
  }
  return infoCache.set(epochDay, { date, epochDay, weekday, holiday, session });
}

/**
 * Epoch day of the New York date containing instant `ms`. New York is UTC-5 or UTC-4, so the UTC
 * date of ms - 5h is either the New York date or the day before; one cached midnight decides which.
 */
export function newYorkEpochDay(ms: number): number {
  const guess = Math.floor((ms - 5 * HOUR_MS) / DAY_MS);
  return ms >= midnightMs(guess + 1) ? guess + 1 : guess;
}
