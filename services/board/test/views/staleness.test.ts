import { describe, expect, it } from "vitest";
import { freshnessAt } from "@board/market-calendar";
import { STALE_AFTER_SCANS, staleBlock } from "../../src/views/staleness.js";

const isStale = (now: Date, computedAt: string, refreshMinutes: number) => staleBlock(freshnessAt(now, new Date(computedAt), refreshMinutes), refreshMinutes);

describe("staleBlock", () => {
  const computed = "2026-11-20T12:55:00-05:00"; // a Friday, market hours (New York)
  it("is fresh within STALE_AFTER_SCANS scans while the market is open", () => {
    expect(isStale(new Date("2026-11-20T13:00:00-05:00"), computed, 5)).toBe(false);
    expect(isStale(new Date(Date.parse(computed) + STALE_AFTER_SCANS * 5 * 60_000), computed, 5)).toBe(false);
  });
  it("is stale past STALE_AFTER_SCANS scans while the market is open", () => {
    expect(isStale(new Date(Date.parse(computed) + STALE_AFTER_SCANS * 5 * 60_000 + 1000), computed, 5)).toBe(true);
    expect(isStale(new Date("2026-11-20T13:55:00-05:00"), computed, 5)).toBe(true);
  });
  it("follows the cadence: a 1-minute scanner is stale sooner", () => {
    expect(isStale(new Date("2026-11-20T13:00:00-05:00"), computed, 1)).toBe(true);
  });
  it("is never stale while the market is shut: nothing is expected to change", () => {
    expect(isStale(new Date("2026-11-20T18:00:00-05:00"), computed, 5)).toBe(false);
    expect(isStale(new Date("2026-11-21T12:00:00-05:00"), computed, 5)).toBe(false);
  });
});
