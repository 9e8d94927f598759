import type { LicenseRecord } from "@board/proto";

export type LicensePeriod = LicenseRecord["period"];

/**
 * One paid period after `from`, in UTC calendar terms: the same day of the next month
 * (or year), clamped to that month's last day (Jan 31 -> Feb 28/29, Feb 29 -> Feb 28),
 * at the same time of day.
 */
export function addPeriod(from: Date, period: LicensePeriod): Date {
  const months = period === "monthly" ? 1 : 12;
  const y = from.getUTCFullYear();
  const m = from.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(y, m, Math.min(from.getUTCDate(), lastDay), from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()),
  );
}

/** Renewal adds one period to what is left, or to now when the license has already lapsed. */
export function renewedPeriodEnd(periodEnd: Date, period: LicensePeriod, now: Date): Date {
  return addPeriod(periodEnd.getTime() > now.getTime() ? periodEnd : now, period);
}

/** A license verifies while now < period_end, cancelled or not (a revoked one never: see licenseState). */
export const licenseVerifies = (periodEnd: Date, now: Date): boolean => now.getTime() < periodEnd.getTime();

export function licenseState(l: { periodEnd: Date; cancelledAt: Date | null; revokedAt?: Date | null }, now: Date): LicenseRecord["state"] {
  if (l.revokedAt) return "revoked";
  if (!licenseVerifies(l.periodEnd, now)) return "lapsed";
  return l.cancelledAt ? "cancelled" : "active";
}
