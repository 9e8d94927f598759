import { SNAPSHOT_STREAM } from "@board/proto";
import { awaitStream, startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import { systemClock, type Clock } from "./clock.js";
import type { ScannerEnv } from "./env.js";
import { createProvider } from "./market/select.js";
import { lastPublishedAt, publishSnapshot } from "./publish.js";
import { scanInstruments } from "./scan-metrics.js";
import { startSchedule, type ScanSlot } from "./schedule.js";
import type { NameBars } from "./scoring/board.js";
import { buildSnapshotWithBars } from "./snapshot.js";
import { nameSeries, publishSeries } from "./series.js";
import { loadUniverse } from "./universe.js";

export interface ScannerService {
  readonly runtime: Runtime<Record<string, never>>;
  /** Resolves once the start-up scans (previous close and now) are published. */
  readonly ready: Promise<void>;
  scan(slot: ScanSlot): Promise<void>;
  stop(): Promise<void>;
}

/** Wires the scanner: universe, market data provider, scoring, the schedule and the publisher. */
export async function startScanner(env: ScannerEnv, opts: { clock?: Clock } = {}): Promise<ScannerService> {
  const clock = opts.clock ?? systemClock;
  const universe = loadUniverse();
  const rt = await startRuntime({
    service: "scanner-ingest",
    version: pkg.version,
    description: "Scores the universe from market data on the market's schedule and publishes snapshots",
    env,
  });
  const provider = createProvider(env, universe, { log: rt.log });
  rt.lifecycle.onStop("market data", () => provider.close?.());
  // The deploy step makes the stream (a service may not): until then there is nowhere to publish.
  await awaitStream(rt.bus.nc, SNAPSHOT_STREAM, { log: rt.log });
  /**
   * Every name's last bars, for a scan a vendor leaves a name out of (see collectBars). Kept only
   * for a vendor (a provider with whole-market requests): the simulator and csv never leave one
   * out, and the bars of 565 names cost about 25 MB that a scanner at rest would hold for nothing.
   */
  const lastKnown = provider.prepareScan ? new Map<string, NameBars>() : undefined;
  const instruments = scanInstruments(rt.metrics, clock, provider.intraday);
  const scanOne = async (slot: ScanSlot) => {
    const t0 = performance.now();
    const { snapshot, bars } = await buildSnapshotWithBars({ universe, provider, refreshMinutes: env.REFRESH_MINUTES, lastKnown, ...slot });
    if (snapshot.board.provider.detail !== provider.info.detail) {
      rt.log.warn({ asof: slot.asofDaily, provider: snapshot.board.provider.detail }, "some names scored on last known bars");
    }
    const published = await publishSnapshot(rt.bus.nc, snapshot);
    instruments.scanned(slot, published.duplicate ? "duplicate" : "published");
    rt.log.info(
      { asof: slot.asofDaily, intraday: slot.intraday, bytes: published.bytes, seq: published.seq, duplicate: published.duplicate, ms: Math.round(performance.now() - t0) },
      "snapshot published",
    );
    // The name pages' charts, drawn from the delayed board: the last board of a session, which is a
    // closing or morning board (never intraday). So only those carry series: about 12 MB of messages
    // each, twice a session rather than every few minutes. A failure leaves the board published and is said.
    if (slot.intraday) return;
    const t1 = performance.now();
    try {
      const series = await publishSeries(rt.bus.nc, nameSeries(snapshot, bars));
      rt.log.info({ asof: slot.asofDaily, ...series, ms: Math.round(performance.now() - t1) }, "series published");
    } catch (err) {
      rt.log.warn({ err, asof: slot.asofDaily }, "series not published: the name pages show no chart for this board");
    }
  };
  const scan = async (slot: ScanSlot) => {
    if (slot.intraday && !provider.intraday) {
      // End-of-day data cannot make an intraday board; say so rather than publish yesterday's bars as today's.
      rt.log.debug({ at: slot.at.toISOString(), provider: provider.info.name }, "intraday slot skipped: provider has end-of-day data only");
      instruments.scanned(slot, "skipped");
      return;
    }
    try {
      await scanOne(slot);
    } catch (err) {
      instruments.scanned(slot, "failed");
      throw err;
    }
  };
  const schedule = startSchedule({
    scan,
    clock,
    refreshMinutes: env.REFRESH_MINUTES,
    log: rt.log,
    lastPublished: () => lastPublishedAt(rt.bus.nc),
    onNextScan: instruments.nextScan,
  });
  rt.lifecycle.onStop("schedule", () => schedule.stop());
  await rt.serve([]);
  return { runtime: rt, ready: schedule.ready, scan, stop: () => rt.stop() };
}
