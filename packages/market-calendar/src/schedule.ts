// When the board refreshes: on a clock grid every `cadenceMinutes` during market hours, plus each
// session's open and close. nextRefreshAt and runSlotsBetween describe the same set of instants, so
// a scanner that sleeps until nextRefreshAt and one that catches up with runSlotsBetween agree.

import { dayInfoOf, newYorkEpochDay } from "./day-info.js";
import { nextSessionMs, sessionAtMs } from "./sessions.js";
import { millisOf } from "./time.js";

const MINUTE_MS = 60_000;

/** Minutes before each session's open that the scanner publishes the morning board (overnight crypto, pre-open read). */
export const MORNING_LEAD_MINUTES = 90;

/**
 * When the published board next changes, on epoch millis: while the market is open, the next grid
 * boundary (nextRefreshMs); while it is shut, the next morning board if it is still ahead, else
 * the open. `morning` says which of the two a shut market waits for.
 */
export function nextBoardMs(ms: number, stepMs: number): { ms: number; morning: boolean } {
  if (sessionAtMs(ms) !== null) return { ms: nextRefreshMs(ms, stepMs), morning: false };
  const openMs = nextSessionMs(ms).openMs;
  const morningMs = openMs - MORNING_LEAD_MINUTES * MINUTE_MS;
  return morningMs > ms ? { ms: morningMs, morning: true } : { ms: openMs, morning: false };
}

/**
 * Grid step in millis. The grid is anchored at New York midnight, which for every cadence dividing
 * 60 is the familiar :00/:05/:10 minute grid (and whole hours for cadences dividing a day).
 */
export function cadenceStepMs(cadenceMinutes: number): number {
  if (!Number.isInteger(cadenceMinutes) || cadenceMinutes < 1 || cadenceMinutes > 1440) {
    throw new RangeError(`cadenceMinutes must be an integer from 1 to 1440, got ${cadenceMinutes}`);
  }
  return cadenceMinutes * MINUTE_MS;
}

/** nextRefreshAt on epoch millis (the hot path used by freshnessAt). */
export function nextRefreshMs(ms: number, stepMs: number): number {
  const s = sessionAtMs(ms);
  if (s === null) return nextSessionMs(ms).openMs;
  const boundary = s.midnightMs + (Math.floor((ms - s.midnightMs) / stepMs) + 1) * stepMs;
  return Math.min(boundary, s.closeMs);
}

/**
 * Next refresh after `at`: while the market is open, the next grid boundary strictly after `at`,
 * capped at the session close; while it is shut, the next session's open.
 */
export function nextRefreshAt(at: Date, cadenceMinutes = 5): Date {
  return new Date(nextRefreshMs(millisOf(at, "at"), cadenceStepMs(cadenceMinutes)));
}

/**
 * Every refresh instant in (from, to]: each session's open, the grid boundaries inside market hours
 * and each session's close, in order. A scanner uses it to catch up on runs it missed.
 */
export function runSlotsBetween(from: Date, to: Date, cadenceMinutes = 5): Date[] {
  const fromMs = millisOf(from, "from");
  const toMs = millisOf(to, "to");
  const stepMs = cadenceStepMs(cadenceMinutes);
  const slots: Date[] = [];
  if (toMs <= fromMs) return slots;
  const push = (t: number) => {
    if (t > fromMs && t <= toMs) slots.push(new Date(t));
  };
  for (let day = newYorkEpochDay(fromMs), last = newYorkEpochDay(toMs); day <= last; day++) {
    const s = dayInfoOf(day).session;
    if (s === null || s.closeMs <= fromMs || s.openMs > toMs) continue;
    push(s.openMs);
    const firstGrid = s.midnightMs + (Math.floor((s.openMs - s.midnightMs) / stepMs) + 1) * stepMs;
    for (let t = firstGrid; t < s.closeMs; t += stepMs) push(t);
    push(s.closeMs);
  }
  return slots;
}
