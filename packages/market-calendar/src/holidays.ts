// NYSE full-day holidays and 13:00 early closes, computed by rule for any year plus a small table of
// one-off closures. The rules follow NYSE practice from 1999 on (the first year every current rule
// applies); earlier one-off closures, late opens and pre-1999 early-close quirks are not modelled.

import { BoundedCache } from "./cache.js";
import { daysFromCivil, fromEpochDay, isoWeekday, parseDate } from "./dates.js";

export type Holiday = { date: string; name: string };

const MON = 1;
const THU = 4;
const FRI = 5;
const SAT = 6;
const SUN = 7;

// Unscheduled full-day closures (national days of mourning, disasters). Keep in date order.
const SPECIAL_CLOSURES: readonly Holiday[] = [
  { date: "2001-09-11", name: "the September 11 attacks" },
  { date: "2001-09-12", name: "the September 11 attacks" },
  { date: "2001-09-13", name: "the September 11 attacks" },
  { date: "2001-09-14", name: "the September 11 attacks" },
  { date: "2004-06-11", name: "the National Day of Mourning for President Ronald Reagan" },
  { date: "2007-01-02", name: "the National Day of Mourning for President Gerald Ford" },
  { date: "2012-10-29", name: "Hurricane Sandy" },
  { date: "2012-10-30", name: "Hurricane Sandy" },
  { date: "2018-12-05", name: "the National Day of Mourning for President George H. W. Bush" },
  { date: "2025-01-09", name: "the National Day of Mourning for President Jimmy Carter" },
];

// Unscheduled 13:00 closes that no rule produces.
const SPECIAL_EARLY_CLOSES: ReadonlySet<string> = new Set(["2003-12-26"]);

/** Epoch day of the nth (1-based) given ISO weekday of a month. */
function nthWeekday(year: number, month: number, weekday: number, n: number): number {
  const first = daysFromCivil(year, month, 1);
  return first + ((weekday - isoWeekday(first) + 7) % 7) + (n - 1) * 7;
}

/** Epoch day of the last given ISO weekday of a month. */
function lastWeekday(year: number, month: number, weekday: number): number {
  const last = daysFromCivil(year, month + 1, 1) - 1; // month 13 rolls into next January
  return last - ((isoWeekday(last) - weekday + 7) % 7);
}

/** Epoch day of Easter Sunday (anonymous Gregorian algorithm, a.k.a. Meeus/Jones/Butcher). */
function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return daysFromCivil(year, month, day);
}

function thanksgiving(year: number): number {
  return nthWeekday(year, 11, THU, 4);
}

function computeYear(year: number): Map<string, string> {
  const out = new Map<string, string>();
  const add = (epochDay: number, name: string) => out.set(fromEpochDay(epochDay), name);
  // Fixed-date holidays move Saturday -> Friday and Sunday -> Monday.
  const fixed = (month: number, day: number, name: string) => {
    const d = daysFromCivil(year, month, day);
    const wd = isoWeekday(d);
    if (wd === SAT) add(d - 1, `${name} (observed)`);
    else if (wd === SUN) add(d + 1, `${name} (observed)`);
    else add(d, name);
  };

  // New Year's Day: a Saturday Jan 1 is not moved to Friday Dec 31 (NYSE Rule 7.2: the Friday
  // stays open when it ends a monthly or yearly accounting period).
  const jan1 = daysFromCivil(year, 1, 1);
  if (isoWeekday(jan1) === SUN) add(jan1 + 1, "New Year's Day (observed)");
  else if (isoWeekday(jan1) !== SAT) add(jan1, "New Year's Day");

  if (year >= 1998) add(nthWeekday(year, 1, MON, 3), "Martin Luther King Jr. Day");
  add(nthWeekday(year, 2, MON, 3), "Washington's Birthday");
  add(easterSunday(year) - 2, "Good Friday");
  add(lastWeekday(year, 5, MON), "Memorial Day");
  if (year >= 2022) fixed(6, 19, "Juneteenth National Independence Day");
  fixed(7, 4, "Independence Day");
  add(nthWeekday(year, 9, MON, 1), "Labor Day");
  add(thanksgiving(year), "Thanksgiving Day");
  fixed(12, 25, "Christmas Day");

  for (const special of SPECIAL_CLOSURES) {
    if (special.date.startsWith(`${year}-`)) out.set(special.date, special.name);
  }
  return out;
}

const yearCache = new BoundedCache<number, Map<string, string>>(64);

function holidaysOfYear(year: number): Map<string, string> {
  return yearCache.get(year) ?? yearCache.set(year, computeYear(year));
}

/** Every full-day NYSE closure of a year (weekdays only), in date order. */
export function holidaysIn(year: number): Holiday[] {
  if (!Number.isInteger(year) || year < 1 || year > 9999) throw new RangeError(`bad year ${year}`);
  return [...holidaysOfYear(year)]
    .map(([date, name]) => ({ date, name }))
    .sort((x, y) => (x.date < y.date ? -1 : 1));
}

/**
 * Name of the holiday or special closure that shuts NYSE on `date` (New York date, YYYY-MM-DD),
 * e.g. "Thanksgiving Day" or "Independence Day (observed)"; null otherwise. Weekends are null
 * too: a holiday falling on a Saturday or Sunday is reported on the weekday it is observed.
 */
export function holidayName(date: string): string | null {
  const { year } = parseDate(date);
  return holidaysOfYear(year).get(date) ?? null;
}

/** True when `date` is a trading day that closes at 13:00 New York time. */
export function earlyClose(date: string): boolean {
  const { year, month, day } = parseDate(date);
  const epochDay = daysFromCivil(year, month, day);
  const wd = isoWeekday(epochDay);
  if (wd >= SAT || holidayName(date) !== null) return false;
  if (SPECIAL_EARLY_CLOSES.has(date)) return true;

  // Eve of Independence Day: July 3 closes early when it is a trading day (a Friday July 3 is the
  // observed holiday, so this is Mon-Thu). Before 2013 a Wednesday July 3 traded a full day and
  // the Friday after a Thursday July 4 closed early instead.
  if (month === 7 && day === 3) return wd !== 3 || year >= 2013;
  if (month === 7 && day === 5 && wd === FRI && year <= 2012) return true;

  // Day after Thanksgiving.
  if (month === 11 && epochDay === thanksgiving(year) + 1) return true;

  // Christmas Eve on a trading day (a Friday Dec 24 is the observed Christmas, handled above).
  if (month === 12 && day === 24) return true;

  return false;
}
