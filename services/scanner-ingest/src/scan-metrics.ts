import { Counter, Gauge, Histogram, type Metrics } from "@board/service-kit";
import type { Clock } from "./clock.js";
import type { ScanSlot } from "./schedule.js";

export type ScanOutcome = "published" | "duplicate" | "failed" | "skipped";

/** Seconds from a slot to its board on the stream: a scan takes seconds; the objective is 120. */
const LAG_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1800, 3600];

export interface ScanInstruments {
  /** How a slot's scan ended; a board on the stream (published, or the same board again) also says how late. */
  scanned(slot: ScanSlot, outcome: ScanOutcome): void;
  /** The slot the schedule waits for next. */
  nextScan(at: Date): void;
}

/**
 * The scanner's cadence on /metrics (docs/operations.md): scans by outcome, how long after its
 * slot each board reached the stream, the last publish, the next slot due (a slot long past with
 * no scan means the schedule is stuck), and whether the provider gives intraday bars at all (an
 * end-of-day provider publishes no market-hours boards, so freshness does not apply).
 */
export function scanInstruments(metrics: Metrics, clock: Clock, intraday: boolean): ScanInstruments {
  const registers = [metrics.registry];
  const scans = new Counter({ name: "scanner_scans_total", help: "Scheduled scans by outcome: published, duplicate (the slot's board was already on the stream), failed, skipped (an intraday slot an end-of-day provider cannot fill)", labelNames: ["outcome"], registers });
  for (const outcome of ["published", "duplicate", "failed", "skipped"] satisfies ScanOutcome[]) scans.inc({ outcome }, 0);
  const lag = new Histogram({ name: "scanner_publish_lag_seconds", help: "From a scan's slot time to its board on the stream", buckets: LAG_BUCKETS, registers });
  const lastPublish = new Gauge({ name: "scanner_last_publish_timestamp_seconds", help: "When this scanner last put a board on the stream", registers });
  const next = new Gauge({ name: "scanner_next_scan_timestamp_seconds", help: "The slot the scanner's schedule waits for next (market hours, closes, mornings)", registers });
  new Gauge({ name: "scanner_provider_intraday", help: "1 when the market data provider gives the day in progress (intraday boards), 0 for end-of-day data", registers }).set(intraday ? 1 : 0);
  return {
    scanned(slot, outcome) {
      scans.inc({ outcome });
      if (outcome !== "published" && outcome !== "duplicate") return;
      const now = clock.now();
      lag.observe(Math.max(0, (now.getTime() - slot.at.getTime()) / 1000));
      lastPublish.set(now.getTime() / 1000);
    },
    nextScan: (at) => next.set(at.getTime() / 1000),
  };
}
