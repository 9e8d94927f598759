import { describe, expect, it } from "vitest";
import { addPeriod, licenseState, licenseVerifies, renewedPeriodEnd } from "../../src/licenses/period.js";

const d = (s: string) => new Date(s);

describe("license periods (UTC calendar)", () => {
  it("adds one calendar month or year at the same time of day", () => {
    expect(addPeriod(d("2026-03-15T10:20:30.456Z"), "monthly").toISOString()).toBe("2026-04-15T10:20:30.456Z");
    expect(addPeriod(d("2026-12-15T00:00:00Z"), "monthly").toISOString()).toBe("2027-01-15T00:00:00.000Z");
    expect(addPeriod(d("2026-03-15T10:00:00Z"), "yearly").toISOString()).toBe("2027-03-15T10:00:00.000Z");
  });

  it("clamps to the last day of a shorter month", () => {
    expect(addPeriod(d("2026-01-31T12:00:00Z"), "monthly").toISOString()).toBe("2026-02-28T12:00:00.000Z");
    expect(addPeriod(d("2028-01-31T12:00:00Z"), "monthly").toISOString()).toBe("2028-02-29T12:00:00.000Z");
    expect(addPeriod(d("2026-03-31T23:59:59Z"), "monthly").toISOString()).toBe("2026-04-30T23:59:59.000Z");
    expect(addPeriod(d("2028-02-29T08:00:00Z"), "yearly").toISOString()).toBe("2029-02-28T08:00:00.000Z");
  });

  it("is UTC whatever the offset the instant was written with", () => {
    // 2026-01-31 20:00 in New York is already Feb 1 in UTC.
    expect(addPeriod(d("2026-01-31T20:00:00-05:00"), "monthly").toISOString()).toBe("2026-03-01T01:00:00.000Z");
  });

  it("renews from the period end, or from now once lapsed", () => {
    const end = d("2026-05-10T00:00:00Z");
    expect(renewedPeriodEnd(end, "monthly", d("2026-05-01T00:00:00Z")).toISOString()).toBe("2026-06-10T00:00:00.000Z");
    expect(renewedPeriodEnd(end, "monthly", d("2026-05-20T06:00:00Z")).toISOString()).toBe("2026-06-20T06:00:00.000Z");
    expect(renewedPeriodEnd(end, "yearly", d("2026-05-01T00:00:00Z")).toISOString()).toBe("2027-05-10T00:00:00.000Z");
  });

  it("verifies strictly before period_end; cancelled only while it still verifies", () => {
    const end = d("2026-05-10T00:00:00Z");
    expect(licenseVerifies(end, new Date(end.getTime() - 1))).toBe(true);
    expect(licenseVerifies(end, end)).toBe(false);
    expect(licenseState({ periodEnd: end, cancelledAt: null }, d("2026-05-01T00:00:00Z"))).toBe("active");
    expect(licenseState({ periodEnd: end, cancelledAt: d("2026-05-02T00:00:00Z") }, d("2026-05-03T00:00:00Z"))).toBe("cancelled");
    expect(licenseState({ periodEnd: end, cancelledAt: d("2026-05-02T00:00:00Z") }, end)).toBe("lapsed");
    expect(licenseState({ periodEnd: end, cancelledAt: null }, end)).toBe("lapsed");
    // Revoked is final: before period_end, after it, cancelled or not.
    expect(licenseState({ periodEnd: end, cancelledAt: null, revokedAt: d("2026-05-02T00:00:00Z") }, d("2026-05-03T00:00:00Z"))).toBe("revoked");
    expect(licenseState({ periodEnd: end, cancelledAt: d("2026-05-01T00:00:00Z"), revokedAt: d("2026-05-02T00:00:00Z") }, end)).toBe("revoked");
  });
});
