/**
 * The free tier's day: it begins at 00:00 UTC for every client, wherever it is. Pure
 * functions of an instant, so tests move the clock across midnight.
 */

const DAY_MS = 86_400_000;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The UTC day of an instant, as YYYY-MM-DD. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The next 00:00 UTC after an instant: when its day's count resets. */
export function nextUtcMidnight(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

/** Whole seconds from `now` until `until`, rounded up and never below 1 (a Retry-After of 0 invites a retry storm). */
export function secondsUntil(until: Date, now: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
}

/** The UTC day `days` before an instant's day. */
export function utcDayBefore(at: Date, days: number): string {
  return utcDay(new Date(at.getTime() - days * DAY_MS));
}

/** Whether a YYYY-MM-DD string names a real calendar day (the contract checks only its shape). */
export function isCalendarDay(day: string): boolean {
  const m = ISO_DAY.exec(day);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return !Number.isNaN(d.getTime()) && utcDay(d) === day;
}
