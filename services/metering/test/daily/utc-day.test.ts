import { describe, expect, it } from "vitest";
import { isCalendarDay, nextUtcMidnight, secondsUntil, utcDay, utcDayBefore } from "../../src/daily/utc-day.js";

describe("the free tier's UTC day", () => {
  it("begins at 00:00 UTC, whatever offset the instant was written in", () => {
    expect(utcDay(new Date("2025-03-09T23:59:59.999Z"))).toBe("2025-03-09");
    expect(utcDay(new Date("2025-03-10T00:00:00.000Z"))).toBe("2025-03-10");
    expect(utcDay(new Date("2025-03-09T20:30:00-05:00"))).toBe("2025-03-10");
  });

  it("resets at the next 00:00 UTC, also from midnight itself and across months and years", () => {
    expect(nextUtcMidnight(new Date("2025-03-09T23:59:59Z")).toISOString()).toBe("2025-03-10T00:00:00.000Z");
    expect(nextUtcMidnight(new Date("2025-03-10T00:00:00Z")).toISOString()).toBe("2025-03-11T00:00:00.000Z");
    expect(nextUtcMidnight(new Date("2024-02-28T12:00:00Z")).toISOString()).toBe("2024-02-29T00:00:00.000Z");
    expect(nextUtcMidnight(new Date("2025-12-31T23:00:00Z")).toISOString()).toBe("2026-01-01T00:00:00.000Z");
  });

  it("counts whole seconds until the reset, rounded up, never below 1", () => {
    const reset = new Date("2025-03-10T00:00:00Z");
    expect(secondsUntil(reset, new Date("2025-03-09T23:59:59Z"))).toBe(1);
    expect(secondsUntil(reset, new Date("2025-03-09T23:59:59.900Z"))).toBe(1);
    expect(secondsUntil(reset, new Date("2025-03-09T23:58:58.500Z"))).toBe(62);
    expect(secondsUntil(reset, new Date("2025-03-09T00:00:00Z"))).toBe(86_400);
    expect(secondsUntil(reset, new Date("2025-03-10T00:00:05Z"))).toBe(1);
  });

  it("names the day some days before", () => {
    expect(utcDayBefore(new Date("2025-03-01T05:00:00Z"), 1)).toBe("2025-02-28");
    expect(utcDayBefore(new Date("2025-03-01T05:00:00Z"), 35)).toBe("2025-01-25");
  });

  it("tells a real calendar day from a string of the right shape", () => {
    expect(isCalendarDay("2024-02-29")).toBe(true);
    expect(isCalendarDay("2025-02-29")).toBe(false);
    expect(isCalendarDay("2025-13-01")).toBe(false);
    expect(isCalendarDay("2025-1-01")).toBe(false);
  });
});
