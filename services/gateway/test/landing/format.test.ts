import { describe, expect, it } from "vitest";
import { formatChange, formatDateTime, formatPrice, formatScore } from "../../src/landing/format.js";

describe("display formats", () => {
  it("shows prices with two decimals (four below 1) and grouping", () => {
    expect(formatPrice(109.01)).toBe("109.01");
    expect(formatPrice(97123.5)).toBe("97,123.50");
    expect(formatPrice(0.12345)).toBe("0.1235");
  });

  it("signs day changes and never shows a negative zero", () => {
    expect(formatChange(4.9)).toBe("+4.90%");
    expect(formatChange(-0.4)).toBe("-0.40%");
    expect(formatChange(-0.001)).toBe("0.00%");
    expect(formatChange(0.001)).toBe("0.00%");
  });

  it("shows whole scores as they are and others to one decimal", () => {
    expect(formatScore(99)).toBe("99");
    expect(formatScore(62.46)).toBe("62.5");
  });

  it("shows a date-time with its offset, and anything unexpected unchanged", () => {
    expect(formatDateTime("2026-11-19T13:00:00-08:00")).toBe("2026-11-19 13:00 (UTC-08:00)");
    expect(formatDateTime("2026-11-19T21:00:00.000Z")).toBe("2026-11-19 21:00 (UTC)");
    expect(formatDateTime("soon")).toBe("soon");
  });
});
