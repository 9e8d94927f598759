// A whole board (buildSnapshot: bars, scoring, crypto quotes, signals) built from a vendor fake
// while its raw responses are recorded, then rebuilt from the recording alone with the fake
// stopped, through replayedProvider: the same snapshot but for the provider label (delay
// "recorded", and the detail saying so). Polygon and Alpaca, each on a first-start market-hours
// scan of the 565-name universe, with the clock pinned at the scan's instant.

import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nyDate, previousSession } from "@board/market-calendar";
import type { Snapshot } from "@board/proto";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AlpacaProvider, alpacaSymbol } from "../../src/market/alpaca.js";
import type { Bar, MarketDataProvider } from "../../src/market/provider.js";
import { recordingFetch } from "../../src/market/recording.js";
import { replayedProvider, replayFetch } from "../../src/market/replay.js";
import { MarketSimulator } from "../../src/market/simulator.js";
import { PolygonProvider, polygonTicker } from "../../src/market/vendor.js";
import { buildSnapshot } from "../../src/snapshot.js";
import { loadUniverse, type Universe, type UniverseEntry } from "../../src/universe.js";
import { FakeAlpaca } from "./alpaca-fake.js";
import { FakePolygon } from "./polygon-fake.js";

const POLYGON_KEY = "pk_SECRET-replay-board-0123456789";
const ALPACA_KEY_ID = "PKSECRETREPLAYBOARD012";
const ALPACA_SECRET = "SECRET/replay+board=0123456789";
const ASOF = "2026-11-20"; // Friday
const MONDAY = "2026-11-23";
const MONDAY_10AM = new Date("2026-11-23T15:00:00Z"); // 10:00 New York
const LAST_DAY = "2026-11-22";
const HISTORY = 420;

let universe: Universe;
const dailyOf = new Map<string, Bar[]>();
const partialOf = new Map<string, Bar>();

/** Midnight New York of `day` (04:00Z or 05:00Z). */
function nyMidnightMs(day: string): number {
  for (const h of [4, 5]) {
    const t = Date.parse(`${day}T0${h}:00:00Z`);
    if (nyDate(new Date(t)) === day && nyDate(new Date(t - 1)) !== day) return t;
  }
  throw new Error(`no New York midnight for ${day}`);
}
const stamp = (e: UniverseEntry, day: string) => (e.kind === "crypto" ? Date.parse(`${day}T00:00:00Z`) : nyMidnightMs(day));

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

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "replay-board-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

const SCAN = { at: MONDAY_10AM, intraday: true, asofDaily: MONDAY };
const board = (p: MarketDataProvider) => buildSnapshot({ universe, provider: p, ...SCAN });

/** No file of the recording holds a secret. */
async function expectNoSecret(secrets: string[]): Promise<void> {
  for (const name of await readdir(dir)) {
    const bytes = await readFile(join(dir, name));
    for (const s of secrets) for (const form of [s, encodeURIComponent(s)]) expect(bytes.includes(Buffer.from(form)), `${name} holds a secret`).toBe(false);
  }
}

/** The replayed snapshot is the recorded one but for the provider label. */
function expectSameBoard(recorded: Snapshot, replayed: Snapshot): void {
  const { provider: rec, ...restRec } = recorded.board;
  const { provider: rep, ...restRep } = replayed.board;
  expect(restRep).toEqual(restRec);
  expect({ ...replayed, board: null }).toEqual({ ...recorded, board: null });
  expect(rec.delay).not.toBe("recorded");
  expect(rep).toEqual({ ...rec, delay: "recorded", detail: `${rec.detail}; recorded responses replayed` });
}

describe("a whole board recorded and rebuilt from the recording", () => {
  it("Polygon: the replayed board equals the recorded one but for delay recorded", async () => {
    const fake = await new FakePolygon().start();
    try {
      for (const e of universe.entries) {
        fake.daily.set(
          polygonTicker(e),
          dailyOf.get(e.sym)!.map((b) => ({ o: b.open, h: b.high, l: b.low, c: b.close, v: b.volume, vw: b.close, t: stamp(e, b.date), n: 1000, day: b.date })),
        );
        const p = partialOf.get(e.sym);
        if (p) {
          fake.live.set(polygonTicker(e), {
            day: { o: p.open, h: p.high, l: p.low, c: p.close, v: p.volume, vw: p.close },
            lastTrade: { p: p.close, s: 100, t: (MONDAY_10AM.getTime() - 1_000) * 1e6 },
          });
        }
      }
      const polygon = (f: typeof fetch) =>
        new PolygonProvider(universe.entries, {
          apiKey: POLYGON_KEY,
          baseUrl: fake.base,
          plan: "starter",
          requestsPerMinute: 600_000,
          backoffBaseMs: 1,
          maxRetries: 0,
          now: () => MONDAY_10AM,
          fetch: f,
        });
      const live = polygon(recordingFetch(fetch, dir, { secrets: [POLYGON_KEY] }));
      const recorded = await board(live);
      live.close();
      expect(recorded.board.names).toHaveLength(565);
      expect(recorded.board.provider).toMatchObject({ vendor: "polygon", delay: "delayed_15m" });
      expect(fake.seen.some((s) => s.path.includes("/grouped/"))).toBe(true);
      expect(fake.seen.some((s) => s.path.includes("/snapshot/"))).toBe(true);
      expect((await readdir(dir)).length).toBeGreaterThan(300);
      await expectNoSecret([POLYGON_KEY]);

      await fake.stop();
      const sent = fake.seen.length;
      const replaying = polygon(replayFetch(dir));
      const replayed = await board(replayedProvider(replaying));
      replaying.close();
      expect(fake.seen.length).toBe(sent);
      expectSameBoard(recorded, replayed);
    } finally {
      await fake.stop();
    }
  }, 120_000);

  it("Alpaca: the replayed board equals the recorded one but for delay recorded", async () => {
    const fake = await new FakeAlpaca().start();
    try {
      fake.keyId = ALPACA_KEY_ID;
      fake.secretKey = ALPACA_SECRET;
      const usClose = previousSession(MONDAY_10AM).close.getTime();
      for (const e of universe.entries) {
        const s = alpacaSymbol(e);
        const iso = (day: string) => new Date(stamp(e, day)).toISOString();
        fake.daily.set(s, dailyOf.get(e.sym)!.map((b) => ({ t: iso(b.date), o: b.open, h: b.high, l: b.low, c: b.close, v: b.volume, n: 1000, vw: b.close })));
        const p = partialOf.get(e.sym);
        if (!p) continue;
        if (e.kind === "crypto") {
          const friday = dailyOf.get(e.sym)!.find((b) => b.date === ASOF)!;
          fake.minute.set(s, [
            { t: new Date(usClose - 300_000).toISOString(), o: friday.close, h: friday.close, l: friday.close, c: friday.close, v: 2, n: 1, vw: friday.close },
            { t: `${MONDAY}T00:00:00Z`, o: p.open, h: p.high, l: p.low, c: p.close, v: p.volume, n: 10, vw: p.close },
          ]);
        } else {
          fake.dailyBar.set(s, { t: iso(MONDAY), o: p.open, h: p.high, l: p.low, c: p.close, v: p.volume, n: 10, vw: p.close });
        }
      }
      const alpaca = (f: typeof fetch) =>
        new AlpacaProvider(universe.entries, {
          keyId: ALPACA_KEY_ID,
          secretKey: ALPACA_SECRET,
          baseUrl: fake.base,
          requestsPerMinute: 600_000,
          backoffBaseMs: 1,
          maxRetries: 0,
          now: () => MONDAY_10AM,
          fetch: f,
        });
      const live = alpaca(recordingFetch(fetch, dir, { secrets: [ALPACA_KEY_ID, ALPACA_SECRET] }));
      const recorded = await board(live);
      live.close();
      expect(recorded.board.names).toHaveLength(565);
      expect(recorded.board.provider).toMatchObject({ vendor: "alpaca", delay: "real_time" });
      expect(fake.count("/v2/stocks/snapshots")).toBe(3);
      expect(recorded.signals).toEqual(expect.anything());
      expect((await readdir(dir)).length).toBe(fake.seen.length);
      await expectNoSecret([ALPACA_KEY_ID, ALPACA_SECRET]);

      await fake.stop();
      const sent = fake.seen.length;
      const replaying = alpaca(replayFetch(dir));
      const replayed = await board(replayedProvider(replaying));
      replaying.close();
      expect(fake.seen.length).toBe(sent);
      expectSameBoard(recorded, replayed);
    } finally {
      await fake.stop();
    }
  }, 120_000);
});
