// Calendar-date arithmetic on "YYYY-MM-DD" strings and epoch-day integers (days since 1970-01-01).
// Pure integer maths (Howard Hinnant's civil-date algorithms): no Date objects and no time zones,
// so it is fast and a DST switch can never shift a date.

export type Ymd = { year: number; month: number; day: number };

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch day of a proleptic Gregorian date. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Inverse of daysFromCivil. */
export function civilFromDays(epochDay: number): Ymd {
  const z = epochDay + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Parses a strict YYYY-MM-DD date; throws RangeError on malformed or impossible dates (2026-02-30). */
export function parseDate(date: string): Ymd {
  const m = DATE_RE.exec(date);
  if (m) {
    const ymd = { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
    // Round-tripping through the epoch day rejects month 13, Feb 30 and the like.
    const back = civilFromDays(daysFromCivil(ymd.year, ymd.month, ymd.day));
    if (ymd.month >= 1 && ymd.month <= 12 && back.month === ymd.month && back.day === ymd.day) return ymd;
  }
  throw new RangeError(`expected a YYYY-MM-DD date, got ${JSON.stringify(date)}`);
}

export function toEpochDay(date: string): number {
  const { year, month, day } = parseDate(date);
  return daysFromCivil(year, month, day);
}

export function formatYmd(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, "0")}-${month < 10 ? "0" : ""}${month}-${day < 10 ? "0" : ""}${day}`;
}

export function fromEpochDay(epochDay: number): string {
  const { year, month, day } = civilFromDays(epochDay);
  return formatYmd(year, month, day);
}

/** ISO weekday: 1 = Monday ... 7 = Sunday (1970-01-01 was a Thursday). */
export function isoWeekday(epochDay: number): number {
  return ((((epochDay + 3) % 7) + 7) % 7) + 1;
}
