import { describe, expect, it } from "vitest";
import { freshnessAt } from "@board/market-calendar";
import { FreshnessBlock } from "@board/proto";
import { STALE_AFTER_SCANS, staleBlock } from "../../src/views/staleness.js";
import { delayedSnapshot, publicationOf, readerOf, snapshot } from "./support.js";

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

describe("the freshness block's data_delay, from the board's provider", () => {
  const vendorBoard = (delay: "delayed_15m" | "real_time") => ({
    ...snapshot,
    board: { ...snapshot.board, provider: { name: "vendor" as const, detail: "test vendor", simulated: false, vendor: "alpaca", feed: "iex", delay } },
  });

  it("rides on the current board's reads and on a delayed view's (its own board's delay), in the body and the meta the gateway turns into headers", () => {
    const delayedOf15m = { ...delayedSnapshot.board, provider: { ...delayedSnapshot.board.provider, delay: "end_of_day" as const } };
    const reader = readerOf(publicationOf(vendorBoard("delayed_15m"), { delayed: delayedOf15m }));
    const full = reader.json("agent");
    expect((full.body["freshness"] as FreshnessBlock).data_delay).toBe("delayed_15m");
    expect(full.meta.freshness.data_delay).toBe("delayed_15m");
    expect(full.meta.freshness.poll_hint).toContain("15-minute delayed feed");
    expect(FreshnessBlock.strict().parse(full.body["freshness"])).toEqual(full.meta.freshness);
    expect(reader.json("delayed").meta.freshness.data_delay).toBe("end_of_day");
  });

  it("is absent on a board that does not say it (a board published before providers said their delay)", () => {
    const freshness = readerOf(publicationOf(snapshot)).json("agent").meta.freshness;
    expect(snapshot.board.provider.delay).toBeUndefined();
    expect("data_delay" in freshness).toBe(false);
  });
});
