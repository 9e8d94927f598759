// NYSE regular sessions (09:30-16:00 New York, 13:00 on early-close days) and the questions a
// service asks about them: is the market open, which session is this, what comes next.

import { dayInfoOf, newYorkEpochDay, type SessionMs } from "./day-info.js";
import { toEpochDay } from "./dates.js";
import { millisOf } from "./time.js";

export type Session = { date: string; open: Date; close: Date; early_close: boolean };

// Longest run of days without a session since 1999 is 7 (Sep 10 to Sep 17, 2001); a bound keeps a
// bug from looping forever.
const MAX_GAP_DAYS = 20;

function toSession(s: SessionMs): Session {
  // Fresh Dates each time: callers may mutate them, the cached millis stay intact.
  return { date: s.date, open: new Date(s.openMs), close: new Date(s.closeMs), early_close: s.early };
}

function sessionOfDay(epochDay: number): SessionMs | null {
  return dayInfoOf(epochDay).session;
}

/** Session in progress at `ms` (open <= ms < close), or null. */
export function sessionAtMs(ms: number): SessionMs | null {
  const s = sessionOfDay(newYorkEpochDay(ms));
  return s !== null && s.openMs <= ms && ms < s.closeMs ? s : null;
}

/** First session whose open is strictly after `ms`. */
export function nextSessionMs(ms: number): SessionMs {
  const start = newYorkEpochDay(ms);
  for (let day = start; day <= start + MAX_GAP_DAYS; day++) {
    const s = sessionOfDay(day);
    if (s !== null && s.openMs > ms) return s;
  }
  throw new Error(`no NYSE session within ${MAX_GAP_DAYS} days after ${new Date(ms).toISOString()}`);
}

/** Latest session whose `edge` (open or close) is at or before `ms`. */
function latestSessionMs(ms: number, edge: "openMs" | "closeMs"): SessionMs {
  const start = newYorkEpochDay(ms);
  for (let day = start; day >= start - MAX_GAP_DAYS; day--) {
    const s = sessionOfDay(day);
    if (s !== null && s[edge] <= ms) return s;
  }
  throw new Error(`no NYSE session within ${MAX_GAP_DAYS} days before ${new Date(ms).toISOString()}`);
}

/** New York calendar date (YYYY-MM-DD) of an instant. */
export function nyDate(at: Date): string {
  return dayInfoOf(newYorkEpochDay(millisOf(at, "at"))).date;
}

/** The session on a New York date, or null on weekends and holidays. */
export function sessionOn(date: string): Session | null {
  const s = sessionOfDay(toEpochDay(date));
  return s === null ? null : toSession(s);
}

export function isTradingDay(date: string): boolean {
  return sessionOfDay(toEpochDay(date)) !== null;
}

/** True during a session: open <= at < close. */
export function isMarketOpen(at: Date): boolean {
  return sessionAtMs(millisOf(at, "at")) !== null;
}

/** The session in progress at `at`, or null when the market is shut. */
export function sessionAt(at: Date): Session | null {
  const s = sessionAtMs(millisOf(at, "at"));
  return s === null ? null : toSession(s);
}

/** First session whose open is strictly after `at` (so at 09:30 exactly it is the next day's). */
export function nextSession(at: Date): Session {
  return toSession(nextSessionMs(millisOf(at, "at")));
}

/** Latest session whose close is at or before `at`. */
export function previousSession(at: Date): Session {
  return toSession(latestSessionMs(millisOf(at, "at"), "closeMs"));
}

/**
 * The trading day a scan taken at `at` belongs to: the New York date of the latest session whose
 * open is at or before `at`. Before Monday's open, and all weekend, that is Friday.
 */
export function tradingDayOf(at: Date): string {
  return latestSessionMs(millisOf(at, "at"), "openMs").date;
}

/**
 * The trading day `n` trading days after `date` (before it when n < 0). `date` itself need not be
 * a trading day; n = 0 returns `date` unchanged.
 */
export function addTradingDays(date: string, n: number): string {
  if (!Number.isInteger(n)) throw new RangeError(`n must be an integer, got ${n}`);
  let day = toEpochDay(date);
  if (n === 0) return date;
  const step = n > 0 ? 1 : -1;
  for (let left = Math.abs(n); left > 0; ) {
    day += step;
    if (sessionOfDay(day) !== null) left--;
  }
  return dayInfoOf(day).date;
}
