import { describe, expect, it } from "vitest";
import { civilFromDays, daysFromCivil, fromEpochDay, isoWeekday, parseDate, toEpochDay } from "../src/dates.js";

describe("civil dates", () => {
  it("matches Date.UTC over a wide range", () => {
    for (let day = daysFromCivil(1899, 1, 1); day <= daysFromCivil(2101, 1, 1); day += 37) {
      const d = new Date(day * 86_400_000);
      expect(civilFromDays(day)).toEqual({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() });
      expect(isoWeekday(day)).toBe(d.getUTCDay() === 0 ? 7 : d.getUTCDay());
    }
  });

  it("round-trips strings", () => {
    expect(toEpochDay("1970-01-01")).toBe(0);
    expect(fromEpochDay(toEpochDay("2024-02-29"))).toBe("2024-02-29");
    expect(isoWeekday(toEpochDay("2026-11-26"))).toBe(4); // Thursday
  });

  it("rejects malformed and impossible dates", () => {
    for (const bad of ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "2026-01-01T00:00", ""]) {
      expect(() => parseDate(bad)).toThrow(RangeError);
    }
  });
});
