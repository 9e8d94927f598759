// Time-zone conversions and ISO formatting. luxon does the zone maths (DST-correct); callers cache
// the results per date, so luxon only runs when a new date is first seen.

import { DateTime } from "luxon";

export const NEW_YORK = "America/New_York";
export const PACIFIC = "America/Los_Angeles";

// ISO 8601 with the zone offset and no milliseconds, e.g. 2026-11-23T09:30:00-05:00.
const ISO_SECONDS = "yyyy-MM-dd'T'HH:mm:ssZZ";

/** Epoch millis of a Date; throws on an invalid Date so NaN never reaches the calendar maths. */
export function millisOf(d: Date, what = "date"): number {
  const ms = d instanceof Date ? d.getTime() : Number.NaN;
  if (Number.isNaN(ms)) throw new RangeError(`${what} must be a valid Date`);
  return ms;
}

function formatIn(d: Date, zone: string): string {
  // Truncate to the whole second so the output never claims a later second than `d`.
  return DateTime.fromMillis(Math.floor(millisOf(d) / 1000) * 1000, { zone }).toFormat(ISO_SECONDS);
}

/** `d` as ISO 8601 New York local time with offset, no milliseconds. */
export function formatNewYork(d: Date): string {
  return formatIn(d, NEW_YORK);
}

/** `d` as ISO 8601 Pacific local time with offset, no milliseconds. */
export function formatPacific(d: Date): string {
  return formatIn(d, PACIFIC);
}

/** Epoch millis of a New York wall-clock time (the times used here always exist: no 02:00-03:00). */
export function newYorkMillis(year: number, month: number, day: number, hour: number, minute: number): number {
  return DateTime.fromObject({ year, month, day, hour, minute }, { zone: NEW_YORK }).toMillis();
}
