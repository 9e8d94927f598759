// Whole scans of the 565-name universe against the Alpaca fake, through buildSnapshot: the
// requests a scan costs (the README's 25 at a first start, 4 per market-hours scan), what a scan
// does when the vendor fails or leaves names out (the mid-scan failure rule of snapshot.ts), and
// that the closing board equals the csv provider's on the same bars. The fake's bars come from the
// seeded simulator, as in vendor-scan.test.ts.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nyDate, previousSession } from "@board/market-calendar";
import type { Snapshot } from "@board/proto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AlpacaProvider, alpacaSymbol, type AlpacaOptions } from "../../src/market/alpaca.js";
import { CsvProvider } from "../../src/market/csv.js";
import type { Bar, MarketDataProvider } from "../../src/market/provider.js";
import { MarketSimulator } from "../../src/market/simulator.js";
import type { NameBars } from "../../src/scoring/board.js";
import { buildSnapshot, MAX_STALE_SHARE, ScanIncomplete } from "../../src/snapshot.js";
import { loadUniverse, type Universe, type UniverseEntry } from "../../src/universe.js";
import { FakeAlpaca, type ABar } from "./alpaca-fake.js";

/** Each test scores the 565 names two or three times: 15 s alone on a slow 2-core day, 31 s beside other files (a timeout, not a finding). */
const SCANS_TIMEOUT_MS = 90_000;
const KEY_ID = "PKSECRETALPACASCAN0123";
const SECRET = "SECRET/alpaca+scan=secret-0123456789";
const ASOF = "2026-11-20"; // Friday
const MORNING_AFTER = new Date("2026-11-21T14:00:00Z"); // Saturday 06:00 Pacific: the closing board
const MONDAY = "2026-11-23";
const MONDAY_10AM = new Date("2026-11-23T15:00:00Z"); // 10:00 New York
const LAST_DAY = "2026-11-22";
const HISTORY = 420;

let universe: Universe;
const dailyOf = new Map<string, Bar[]>();
const partialOf = new Map<string, Bar>();

/** Midnight New York of `day`, as Alpaca stamps an equity's daily bar. */
function nyMidnight(day: string): string {
  return nyDate(new Date(`${day}T04:00:00Z`)) === day && nyDate(new Date(`${day}T03:59:59Z`)) !== day ? `${day}T04:00:00Z` : `${day}T05:00:00Z`;
}

function aBar(e: UniverseEntry, b: Bar): ABar {
  const t = e.kind === "crypto" ? `${b.date}T00:00:00Z` : nyMidnight(b.date);
  return { t, o: b.open, h: b.high, l: b.low, c: b.close, v: b.volume, n: 1000, vw: b.close };
}

beforeAll(async () => {
  universe = loadUniverse();
  const sim = new MarketSimulator(universe.entries);
  sim.warm(LAST_DAY);
  for (const e of universe.entries) {
    dailyOf.set(e.sym, await sim.dailyBars(e.sym, e.kind === "crypto" ? LAST_DAY : ASOF, HISTORY));
    const bar = await sim.intradayBar(e.sym, MONDAY_10AM);
    if (bar) partialOf.set(e.sym, bar);
  }
});

let fake: FakeAlpaca;
let now: Date;
beforeEach(async () => {
  fake = await new FakeAlpaca().start();
  fake.keyId = KEY_ID;
  fake.secretKey = SECRET;
  for (const e of universe.entries) fake.daily.set(alpacaSymbol(e), dailyOf.get(e.sym)!.map((b) => aBar(e, b)));
  now = MORNING_AFTER;
});
afterEach(async () => {
  await fake.stop();
});

/** The day in progress at MONDAY_10AM: equity snapshots, and crypto 5-minute bars (Friday's close and Monday). */
function fillLive(): void {
  const usClose = previousSession(MONDAY_10AM).close.getTime();
  for (const e of universe.entries) {
    const p = partialOf.get(e.sym);
    if (!p) continue;
    const s = alpacaSymbol(e);
    if (e.kind === "crypto") {
      const friday = dailyOf.get(e.sym)!.find((b) => b.date === ASOF)!;
      fake.minute.set(s, [
        { t: new Date(usClose - 300_000).toISOString(), o: friday.close, h: friday.close, l: friday.close, c: friday.close, v: 2, n: 1, vw: friday.close },
        { t: `${MONDAY}T00:00:00Z`, o: p.open, h: p.high, l: p.low, c: p.close, v: p.volume, n: 10, vw: p.close },
      ]);
    } else {
      fake.dailyBar.set(s, { t: nyMidnight(MONDAY), o: p.open, h: p.high, l: p.low, c: p.close, v: p.volume, n: 10, vw: p.close });
    }
  }
}

function provider(opts: Partial<AlpacaOptions> = {}): AlpacaProvider {
  return new AlpacaProvider(universe.entries, {
    keyId: KEY_ID,
    secretKey: SECRET,
    baseUrl: fake.base,
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
  stockBars: paths.filter((x) => x === "/v2/stocks/bars").length,
  cryptoBars: paths.filter((x) => x === "/v1beta3/crypto/us/bars").length,
  snapshots: paths.filter((x) => x === "/v2/stocks/snapshots").length,
});

async function refusal(p: Promise<unknown>): Promise<ScanIncomplete> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ScanIncomplete);
  for (const s of [KEY_ID, SECRET, encodeURIComponent(SECRET)]) expect((err as Error).message).not.toContain(s);
  return err as ScanIncomplete;
}

describe("Alpaca scan budget, through buildSnapshot", () => {
  it("first start during market hours: 25 requests; each later market-hours scan: 4", async () => {
    fillLive();
    const p = provider();
    const first = await scan(p, INTRADAY);
    // 345 bars of 563 equities in chunks of 200, 10 000 data points a page: 7 + 7 + 6 pages; one
    // crypto daily request; one snapshots request per chunk; one of the crypto 5-minute bars.
    expect(kinds(first.requests)).toEqual({ stockBars: 20, cryptoBars: 2, snapshots: 3 });
    expect(first.requests).toHaveLength(25);
    expect(first.snap.board.names).toHaveLength(565);
    expect(first.snap.board.provider.detail).not.toContain("last known");
    const aapl = first.snap.board.names.find((x) => x.sym === "AAPL")!;
    expect(aapl.price).toBeCloseTo(partialOf.get("AAPL")!.close, 2);

    const next = await scan(p, { ...INTRADAY, at: new Date(MONDAY_10AM.getTime() + 5 * 60_000) });
    expect(next.requests.sort()).toEqual(["/v1beta3/crypto/us/bars", "/v2/stocks/snapshots", "/v2/stocks/snapshots", "/v2/stocks/snapshots"]);
    console.log(`alpaca budget: first start (market hours) ${first.requests.length} requests, later market-hours scans ${next.requests.length}`);
    p.close();
  }, SCANS_TIMEOUT_MS);

  it("first start on a closing board: within 25 requests, no snapshots", async () => {
    const p = provider();
    const first = await scan(p, CLOSING);
    expect(kinds(first.requests)).toEqual({ stockBars: 20, cryptoBars: 2, snapshots: 0 });
    expect(first.requests.length).toBeLessThanOrEqual(25);
    expect(first.snap.board.names).toHaveLength(565);
    p.close();
  }, SCANS_TIMEOUT_MS);
});

describe("Alpaca scan when the vendor fails", () => {
  it("a 429 storm on the multi-symbol requests refuses the scan (vendor_unavailable): the last board stays", async () => {
    fake.always = { status: 429, headers: { "retry-after": "0" }, body: JSON.stringify({ message: "too many requests." }) };
    const p = provider({ maxRetries: 2 });
    const e = await refusal(scan(p, CLOSING));
    expect(e.reason).toBe("vendor_unavailable");
    expect(e.message).toMatch(/giving up after 3 attempts: HTTP 429/);
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

  it("a name missing from the multi-symbol answer is read on its own, and the board is whole", async () => {
    fake.dropInMulti.add("AAPL");
    const p = provider();
    const { snap } = await scan(p, CLOSING);
    const alone = fake.seen.filter((x) => x.path === "/v2/stocks/bars" && x.query.get("symbols") === "AAPL");
    expect(alone).toHaveLength(1);
    expect(snap.board.names.find((x) => x.sym === "AAPL")!.price).toBeCloseTo(dailyOf.get("AAPL")!.at(-1)!.close, 2);
    expect(snap.board.provider.detail).not.toContain("last known");
    p.close();
  }, SCANS_TIMEOUT_MS);

  it("a delisted name is refused without last known bars, and published on them (said in the label) with", async () => {
    const gone = universe.entries.find((e) => e.kind === "stock" && e.sector !== "Index" && !Object.values(universe.sectorEtfs).includes(e.sym))!;
    const lastKnown = new Map<string, NameBars>();
    const good = await scan(provider(), CLOSING, lastKnown);
    expect(lastKnown.size).toBe(565);

    // Delisted on 2026-10-15: no bars since, in the multi-symbol answers or its own.
    const s = alpacaSymbol(gone);
    fake.daily.set(s, fake.daily.get(s)!.filter((a) => a.t.slice(0, 10) <= "2026-10-15"));
    const e = await refusal(scan(provider(), CLOSING));
    expect(e.reason).toBe("vendor_incomplete");
    expect(e.missing).toEqual([{ sym: gone.sym, reason: "no_recent_bars", detail: "last bar 2026-10-15" }]);

    const { snap } = await scan(provider(), CLOSING, lastKnown);
    expect(snap.board.names).toHaveLength(565);
    expect(snap.board.provider.detail).toContain(`on last known bars (not given this scan): ${gone.sym}`);
    const record = (x: Snapshot) => x.board.names.find((n) => n.sym === gone.sym);
    expect(record(snap)).toEqual(record(good.snap));
  }, SCANS_TIMEOUT_MS);

  it("names left out of the snapshots whose own reads come back empty are put on last known bars", async () => {
    fillLive();
    const p = provider({ maxRetries: 0 });
    const lastKnown = new Map<string, NameBars>();
    await scan(p, CLOSING, lastKnown);
    await scan(p, INTRADAY, lastKnown);
    // The next scan's snapshots leave out three names, and their own 5-minute reads are empty.
    const missing = ["MSFT", "NVDA", "JPM"];
    for (const s of missing) fake.dropInMulti.add(s);
    const { snap } = await scan(p, { ...INTRADAY, at: new Date(MONDAY_10AM.getTime() + 5 * 60_000) }, lastKnown);
    const alone = fake.seen.filter((x) => x.path === "/v2/stocks/bars" && x.query.get("timeframe") === "5Min");
    expect(alone.map((x) => x.query.get("symbols")).sort()).toEqual([...missing].sort());
    expect(snap.board.names).toHaveLength(565);
    expect(snap.board.provider.detail).toMatch(/on last known bars \(not given this scan\): (MSFT|NVDA|JPM), (MSFT|NVDA|JPM), (MSFT|NVDA|JPM)$/);
    p.close();
  }, SCANS_TIMEOUT_MS);

  it(`refuses the scan when more than ${MAX_STALE_SHARE * 100}% of the universe is missing, last known bars or not`, async () => {
    const lastKnown = new Map<string, NameBars>();
    await scan(provider(), CLOSING, lastKnown);
    const stocks = universe.entries.filter((e) => e.kind === "stock").slice(0, Math.floor(565 * MAX_STALE_SHARE) + 1);
    for (const e of stocks) {
      fake.dropInMulti.add(alpacaSymbol(e));
      fake.daily.delete(alpacaSymbol(e));
    }
    const e = await refusal(scan(provider(), CLOSING, lastKnown));
    expect(e.reason).toBe("vendor_incomplete");
    expect(e.missing).toHaveLength(12);
    expect(e.message).toMatch(/12 of 565 names missing from vendor \(at most 11 may be stale\)/);
  }, SCANS_TIMEOUT_MS);
});

describe("the same board from the Alpaca fake and from csv files", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "alpaca-csv-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("scores the same closing board from both", async () => {
    // The fake's bars as the csv provider's files: adjusted already, so adj_close is the close.
    for (const e of universe.entries) {
      const rows = dailyOf
        .get(e.sym)!
        .filter((b) => b.date <= ASOF)
        .map((b) => `${b.date},${b.open},${b.high},${b.low},${b.close},${b.close},${b.volume}`);
      await writeFile(join(dir, `${e.sym}.csv`), `date,open,high,low,close,adj_close,volume\n${rows.join("\n")}\n`);
    }
    // No crypto 5-minute bars in the fake: crypto quotes fall back to daily closes, as with csv.
    const vendor = provider();
    const fromVendor = (await scan(vendor, CLOSING)).snap;
    const fromCsv = await buildSnapshot({ universe, provider: new CsvProvider(dir, universe.entries), ...CLOSING });
    const { provider: pv, ...boardV } = fromVendor.board;
    const { provider: pc, ...boardC } = fromCsv.board;
    expect(pv).toMatchObject({ name: "vendor", vendor: "alpaca", feed: "iex", delay: "real_time" });
    expect(pc).toMatchObject({ name: "csv", delay: "end_of_day" });
    expect(boardV).toEqual(boardC);
    expect({ ...fromVendor, board: null }).toEqual({ ...fromCsv, board: null });
    vendor.close();
  }, SCANS_TIMEOUT_MS);
});
