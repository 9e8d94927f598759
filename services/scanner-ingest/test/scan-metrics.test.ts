import { createMetrics } from "@board/service-kit";
import { describe, expect, it } from "vitest";
import { scanInstruments } from "../src/scan-metrics.js";
import { slotAt } from "../src/schedule.js";

const at = new Date("2026-03-10T15:00:00Z");

describe("the scanner's cadence on /metrics", () => {
  it("counts scans by outcome, times each board on the stream from its slot, and says the next slot", async () => {
    const metrics = createMetrics("scanner-ingest");
    let now = new Date(at.getTime() + 42_000);
    const instruments = scanInstruments(metrics, { now: () => now, sleepUntil: async () => undefined }, true);
    instruments.scanned(slotAt(at), "published");
    now = new Date(at.getTime() + 300_000);
    instruments.scanned(slotAt(at), "failed");
    instruments.nextScan(new Date(at.getTime() + 300_000));
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/scanner_scans_total\{outcome="published",service="scanner-ingest"\} 1\n/);
    expect(text).toMatch(/scanner_scans_total\{outcome="failed",service="scanner-ingest"\} 1\n/);
    expect(text).toMatch(/scanner_scans_total\{outcome="duplicate",service="scanner-ingest"\} 0\n/);
    expect(text).toMatch(/scanner_publish_lag_seconds_bucket\{le="30",service="scanner-ingest"\} 0\n/);
    expect(text).toMatch(/scanner_publish_lag_seconds_bucket\{le="60",service="scanner-ingest"\} 1\n/);
    expect(text).toMatch(/scanner_publish_lag_seconds_count\{service="scanner-ingest"\} 1\n/);
    expect(text).toContain(`scanner_last_publish_timestamp_seconds{service="scanner-ingest"} ${(at.getTime() + 42_000) / 1000}\n`);
    expect(text).toContain(`scanner_next_scan_timestamp_seconds{service="scanner-ingest"} ${(at.getTime() + 300_000) / 1000}\n`);
    expect(text).toContain(`scanner_provider_intraday{service="scanner-ingest"} 1\n`);
  });
});
