// Calendar-date arithmetic on YYYY-MM-DD strings via epoch days (days since 1970-01-01, UTC).
// No time zones: a date is a label, and UTC arithmetic on labels never shifts across DST.

const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Epoch day of a strict YYYY-MM-DD date; throws RangeError on anything else (2026-02-30 too). */
export function toEpochDay(date: string): number {
  const m = DATE_RE.exec(date);
  if (m) {
    const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    if (fromEpochDay(ms / DAY_MS) === date) return ms / DAY_MS;
  }
  throw new RangeError(`expected a YYYY-MM-DD date, got ${JSON.stringify(date)}`);
}

export function fromEpochDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(date: string, n: number): string {
  return fromEpochDay(toEpochDay(date) + n);
}

/** The UTC calendar date of an instant (the crypto day). */
export function utcDateOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Fraction of the UTC calendar day elapsed at `at`, in [0, 1). */
export function utcDayFraction(at: Date): number {
  const ms = at.getTime();
  return (ms - Math.floor(ms / DAY_MS) * DAY_MS) / DAY_MS;
}
