// Whole scans of the 565-name universe against the Polygon fake: how many requests a scan costs
// (first start, each intraday scan, and the per-name path it replaced), what a scan does when the
// vendor fails or leaves names out, and that the board equals the csv provider's on the same bars.
// The fake's bars come from the seeded simulator, so every name has a full, plausible history.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nyDate, sessionAt } from "@board/market-calendar";
import type { Snapshot } from "@board/proto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CsvProvider } from "../../src/market/csv.js";
import { addDays } from "../../src/market/days.js";
import type { Bar, MarketDataProvider } from "../../src/market/provider.js";
import { MarketSimulator } from "../../src/market/simulator.js";
import { PolygonProvider, polygonTicker, type VendorOptions } from "../../src/market/vendor.js";
import type { NameBars } from "../../src/scoring/board.js";
import { buildSnapshot, MAX_STALE_SHARE, ScanIncomplete } from "../../src/snapshot.js";
import { loadUniverse, type Universe, type UniverseEntry } from "../../src/universe.js";
import { FakePolygon, type DailyAgg } from "./polygon-fake.js";

/** Each test scores the 565 names two or three times: 15 s alone on a slow 2-core day, 31 s beside other files (a timeout, not a finding). */
const SCANS_TIMEOUT_MS = 90_000;
const KEY = "pk_SECRET-scan-key-0123456789";
const ASOF = "2026-11-20"; // Friday
const MORNING_AFTER = new Date("2026-11-21T14:00:00Z"); // Saturday 06:00 Pacific: the closing board
const MONDAY = "2026-11-23";
const MONDAY_10AM = new Date("2026-11-23T15:00:00Z"); // 10:00 New York
/** The fake's daily series end here (crypto's Sunday included). */
const LAST_DAY = "2026-11-22";
const HISTORY = 420;

let universe: Universe;
let sim: MarketSimulator;
/** Every name's daily bars through LAST_DAY, and its partial bar at MONDAY_10AM. */
const dailyOf = new Map<string, Bar[]>();
const partialOf = new Map<string, Bar>();

/** Midnight New York of `day`, as Polygon stamps an equity's daily bar. */
function nyMidnight(day: string): number {
  for (const h of [4, 5]) {
    const t = Date.parse(`${day}T0${h}:00:00Z`);
    if (nyDate(new Date(t)) === day && nyDate(new Date(t - 1)) !== day) return t;
  }
  throw new Error(`no New York midnight for ${day}`);
}

function aggOf(e: UniverseEntry, b: Bar): DailyAgg {
  const t = e.kind === "crypto" ? Date.parse(`${b.date}T00:00:00Z`) : nyMidnight(b.date);
  return { o: b.open, h: b.high, l: b.low, c: b.close, v: b.volume, vw: b.close, t, n: 1000, day: b.date };
}

beforeAll(async () => {
  universe = loadUniverse();
  sim = new MarketSimulator(universe.entries);
  sim.warm(LAST_DAY);
  for (const e of universe.entries) {
    dailyOf.set(e.sym, await sim.dailyBars(e.sym, e.kind === "crypto" ? LAST_DAY : ASOF, HISTORY));
    const bar = await sim.intradayBar(e.sym, MONDAY_10AM);
    if (bar) partialOf.set(e.sym, bar);
  }
});

let fake: FakePolygon;
let now: Date;
beforeEach(async () => {
  fake = await new FakePolygon().start();
  for (const e of universe.entries) {
    fake.daily.set(polygonTicker(e), dailyOf.get(e.sym)!.map((b) => aggOf(e, b)));
    const p = partialOf.get(e.sym);
    if (p) {
      const t = MONDAY_10AM.getTime() - 1_000;
      fake.live.set(polygonTicker(e), {
        day: { o: p.open, h: p.high, l: p.low, c: p.close, v: p.volume, vw: p.close },
        lastTrade: { p: p.close, s: 100, t: t * 1e6 },
      });
    }
  }
  now = MORNING_AFTER;
});
afterEach(async () => {
  await fake.stop();
});

function provider(opts: Partial<VendorOptions> = {}): PolygonProvider {
  return new PolygonProvider(universe.entries, {
    apiKey: KEY,
    baseUrl: fake.base,
    plan: "starter",
    requestsPerMinute: 600_000,
    backoffBaseMs: 2,
    timeoutMs: 2_000,
    now: () => now,
    ...opts,
  });
}

type Scan = { at: Date; intraday: boolean; asofDaily: string };
const CLOSING: Scan = { at: MORNING_AFTER, intraday: false, asofDaily: ASOF };
const INTRADAY: Scan = { at: MONDAY_10AM, intraday: true, asofDaily: MONDAY };

/** Runs one scan with the wall clock at the scan's instant; returns the snapshot and the requests it sent. */
async function scan(p: MarketDataProvider, s: Scan, lastKnown?: Map<string, NameBars>): Promise<{ snap: Snapshot; requests: string[] }> {
  now = s.at;
  const before = fake.seen.length;
  const snap = await buildSnapshot({ universe, provider: p, ...s, ...(lastKnown ? { lastKnown } : {}) });
  return { snap, requests: fake.seen.slice(before).map((x) => x.path) };
}

const kinds = (paths: string[]) => ({
  grouped: paths.filter((x) => x.includes("/grouped/")).length,
  snapshot: paths.filter((x) => x.includes("/snapshot/")).length,
  perName: paths.filter((x) => x.includes("/aggs/ticker/")).length,
});

/** The same provider with only per-name reads: the request pattern before prepareScan. */
function perNameOnly(p: PolygonProvider): MarketDataProvider {
  return { info: p.info, intraday: p.intraday, dailyBars: (s, t, c) => p.dailyBars(s, t, c), intradayBar: (s, a) => p.intradayBar(s, a) };
}

async function refusal(p: Promise<unknown>): Promise<ScanIncomplete> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ScanIncomplete);
  expect((err as Error).message).not.toContain(KEY);
  return err as ScanIncomplete;
}

describe("Polygon scan budget", () => {
  it("first start: one grouped request per session of history, then a handful per intraday scan", async () => {
    const p = provider();
    const first = await scan(p, CLOSING);
    const n = kinds(first.requests);
    // 340 bars and 5 of slack: one grouped request per session, no name asked on its own but crypto.
    expect(n.grouped).toBe(345);
    expect(new Set(first.requests.filter((x) => x.includes("/grouped/"))).size).toBe(345);
    const crypto = universe.entries.filter((e) => e.kind === "crypto").length;
    expect(n.snapshot).toBe(1); // crypto's day so far (equities: market shut)
    expect(n.perName).toBeLessThanOrEqual(2 * crypto); // crypto history, and the crypto quote at the US close
    expect(first.requests.length).toBeLessThanOrEqual(345 + 1 + 2 * crypto);
    expect(first.snap.board.names).toHaveLength(565);

    // Monday 10:00: history is cached; the day in progress comes from snapshots of 400 tickers.
    const live = await scan(p, INTRADAY);
    const m = kinds(live.requests);
    expect(m.grouped).toBe(0);
    expect(m.snapshot).toBe(3); // 563 equities in two, 2 crypto in one
    expect(live.requests.length).toBeLessThanOrEqual(3 + 2 * crypto); // crypto's weekend tail and its quote at Friday's close
    const aapl = live.snap.board.names.find((x) => x.sym === "AAPL")!;
    expect(aapl.price).toBeCloseTo(partialOf.get("AAPL")!.close, 2);

    // Five minutes later: only the snapshots.
    const next = await scan(p, { ...INTRADAY, at: new Date(MONDAY_10AM.getTime() + 5 * 60_000) });
    expect(next.requests).toHaveLength(3);
    expect(kinds(next.requests).snapshot).toBe(3);

    // Tuesday's closing board: one grouped request for the new session.
    fake.daily.forEach((series, ticker) => {
      if (ticker.startsWith("X:")) return;
      const last = series.at(-1)!;
      series.push({ ...last, t: nyMidnight(MONDAY), day: MONDAY });
    });
    const tuesdayMorning = await scan(p, { at: new Date("2026-11-24T14:00:00Z"), intraday: false, asofDaily: MONDAY });
    expect(kinds(tuesdayMorning.requests).grouped).toBe(1);

    console.log(
      `polygon budget, prepared: first start ${first.requests.length} requests (${n.grouped} grouped), ` +
        `first intraday scan ${live.requests.length}, later intraday scans ${next.requests.length}, next closing board ${tuesdayMorning.requests.length}`,
    );
    p.close();
  }, SCANS_TIMEOUT_MS);

  it("before: one request per name and scan (the per-name path, measured for comparison)", async () => {
    // The per-name path needs 5-minute bars: one per name, the partial bar itself.
    for (const e of universe.entries) {
      const b = partialOf.get(e.sym);
      const start = e.kind === "crypto" ? Date.parse(`${MONDAY}T00:00:00Z`) : sessionAt(MONDAY_10AM)!.open.getTime();
      if (b) fake.minute.set(polygonTicker(e), [{ o: b.open, h: b.high, l: b.low, c: b.close, v: b.volume, vw: b.close, t: start, n: 10 }]);
    }
    const p = provider();
    const old = perNameOnly(p);
    const first = await scan(old, CLOSING);
    const live = await scan(old, INTRADAY);
    const next = await scan(old, { ...INTRADAY, at: new Date(MONDAY_10AM.getTime() + 5 * 60_000) });
    expect(first.requests.length).toBeGreaterThanOrEqual(565);
    expect(live.requests.length).toBeGreaterThanOrEqual(565);
    expect(next.requests.length).toBeGreaterThanOrEqual(565);
    console.log(`polygon budget, per name: first start ${first.requests.length}, first intraday scan ${live.requests.length}, later intraday scans ${next.requests.length}`);
    p.close();
  }, SCANS_TIMEOUT_MS);
});

describe("Polygon scan when the vendor fails", () => {
  it("a 429 storm on the grouped requests refuses the scan (vendor_unavailable): the last board stays", async () => {
    fake.always = { status: 429, headers: { "retry-after": "0" }, body: JSON.stringify({ status: "ERROR", error: "too many" }) };
    const p = provider({ maxRetries: 2 });
    const e = await refusal(scan(p, CLOSING));
    expect(e.reason).toBe("vendor_unavailable");
    expect(e.message).toMatch(/giving up after 3 attempts: HTTP 429/);
    expect(e.message).toContain("apiKey=***");
    p.close();
  }, SCANS_TIMEOUT_MS);

  it("a vendor that times out refuses the scan (vendor_unavailable)", async () => {
    fake.always = "hang";
    const p = provider({ maxRetries: 1, timeoutMs: 150 });
    const e = await refusal(scan(p, CLOSING));
    expect(e.reason).toBe("vendor_unavailable");
    expect(e.message).toMatch(/timed out after 150 ms/);
    p.close();
  }, SCANS_TIMEOUT_MS);

  it("a session the grouped bars do not have yet refuses the scan, instead of asking 565 names", async () => {
    for (const series of fake.daily.values()) {
      const i = series.findIndex((a) => a.day === ASOF);
      if (i >= 0) series.splice(i, 1);
    }
    const p = provider();
    const e = await refusal(scan(p, CLOSING));
    expect(e.reason).toBe("vendor_unavailable");
    expect(e.message).toContain(`grouped ${ASOF}: no bars for the universe's names`);
    expect(fake.seen.filter((x) => x.path.includes("/aggs/ticker/")).length).toBeLessThan(10);
    p.close();
  }, SCANS_TIMEOUT_MS);

  it("a name missing from the grouped bars (newly listed) is read on its own, and the board is whole", async () => {
    fake.groupedOmits.add("AAPL");
    const p = provider();
    const { snap, requests } = await scan(p, CLOSING);
    expect(requests.filter((x) => x.startsWith("/v2/aggs/ticker/AAPL/range/1/day/"))).toHaveLength(1);
    expect(snap.board.names.find((x) => x.sym === "AAPL")!.price).toBeCloseTo(dailyOf.get("AAPL")!.at(-1)!.close, 2);
    expect(snap.board.provider.detail).not.toContain("last known");
    p.close();
  }, SCANS_TIMEOUT_MS);

  it("a delisted name is refused without last known bars, and published on them (said in the label) with", async () => {
    const gone = universe.entries.find((e) => e.kind === "stock" && e.sector !== "Index" && !Object.values(universe.sectorEtfs).includes(e.sym))!;
    const lastKnown = new Map<string, NameBars>();
    const good = await scan(provider(), CLOSING, lastKnown);
    expect(lastKnown.size).toBe(565);

    // Delisted on 2026-10-15: no bars since, in the grouped responses or its own.
    fake.daily.set(gone.sym, fake.daily.get(gone.sym)!.filter((a) => a.day <= "2026-10-15"));
    const e = await refusal(scan(provider(), CLOSING));
    expect(e.reason).toBe("vendor_incomplete");
    expect(e.missing).toEqual([{ sym: gone.sym, reason: "no_recent_bars", detail: "last bar 2026-10-15" }]);

    const { snap } = await scan(provider(), CLOSING, lastKnown);
    expect(snap.board.names).toHaveLength(565);
    expect(snap.board.provider.detail).toContain(`on last known bars (not given this scan): ${gone.sym}`);
    const record = (s: Snapshot) => s.board.names.find((x) => x.sym === gone.sym);
    expect(record(snap)).toEqual(record(good.snap));
  }, SCANS_TIMEOUT_MS);

  it("a partial snapshot with failing per-name reads puts those names on last known bars", async () => {
    const p = provider({ maxRetries: 0 });
    const lastKnown = new Map<string, NameBars>();
    await scan(p, CLOSING, lastKnown);
    await scan(p, INTRADAY, lastKnown);
    // The next scan's snapshot leaves out three names, and their own 5-minute reads come back empty.
    const missing = ["MSFT", "NVDA", "JPM"];
    for (const s of missing) fake.live.delete(s);
    const { snap, requests } = await scan(p, { ...INTRADAY, at: new Date(MONDAY_10AM.getTime() + 5 * 60_000) }, lastKnown);
    expect(requests.filter((x) => x.includes("/range/5/minute/"))).toHaveLength(3);
    expect(snap.board.provider.detail).toMatch(/on last known bars \(not given this scan\): (MSFT|NVDA|JPM), (MSFT|NVDA|JPM), (MSFT|NVDA|JPM)$/);
    p.close();
  }, SCANS_TIMEOUT_MS);

  it(`refuses the scan when more than ${MAX_STALE_SHARE * 100}% of the universe is missing, last known bars or not`, async () => {
    const lastKnown = new Map<string, NameBars>();
    await scan(provider(), CLOSING, lastKnown);
    const stocks = universe.entries.filter((e) => e.kind === "stock").slice(0, Math.floor(565 * MAX_STALE_SHARE) + 1);
    for (const e of stocks) {
      fake.groupedOmits.add(e.sym);
      fake.daily.delete(e.sym);
    }
    const e = await refusal(scan(provider(), CLOSING, lastKnown));
    expect(e.reason).toBe("vendor_incomplete");
    expect(e.missing).toHaveLength(12);
    expect(e.message).toMatch(/12 of 565 names missing from vendor \(at most 11 may be stale\)/);
  }, SCANS_TIMEOUT_MS);
});

describe("the same board from the Polygon fake and from csv files", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "polygon-csv-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("scores the same closing board from both", async () => {
    // The fake's bars as the csv provider's files: adjusted already, so adj_close is the close.
    for (const e of universe.entries) {
      const rows = dailyOf
        .get(e.sym)!
        .filter((b) => b.date <= ASOF || (e.kind === "crypto" && b.date <= addDays(ASOF, 0)))
        .map((b) => `${b.date},${b.open},${b.high},${b.low},${b.close},${b.close},${b.volume}`);
      await writeFile(join(dir, `${e.sym}.csv`), `date,open,high,low,close,adj_close,volume\n${rows.join("\n")}\n`);
    }
    // The free plan: no snapshot, so crypto quotes fall back to daily closes as with csv.
    const vendor = provider({ plan: "basic" });
    const fromVendor = (await scan(vendor, CLOSING)).snap;
    const fromCsv = await buildSnapshot({ universe, provider: new CsvProvider(dir, universe.entries), ...CLOSING });
    const { provider: pv, ...boardV } = fromVendor.board;
    const { provider: pc, ...boardC } = fromCsv.board;
    expect(pv).toMatchObject({ name: "vendor", vendor: "polygon", delay: "end_of_day" });
    expect(pc).toMatchObject({ name: "csv", delay: "end_of_day" });
    expect(boardV).toEqual(boardC);
    expect({ ...fromVendor, board: null }).toEqual({ ...fromCsv, board: null });
    vendor.close();
  }, SCANS_TIMEOUT_MS);
});
