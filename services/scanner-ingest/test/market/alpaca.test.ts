import { addTradingDays, isTradingDay, nyDate, previousSession } from "@board/market-calendar";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AlpacaProvider, alpacaSymbol, CHUNK, createAlpacaProvider, type AlpacaOptions } from "../../src/market/alpaca.js";
import { addDays } from "../../src/market/days.js";
import type { ScanPlan } from "../../src/market/provider.js";
import { collectBars, cryptoQuotes } from "../../src/snapshot.js";
import { loadUniverse, type UniverseEntry } from "../../src/universe.js";
import { FakeAlpaca, type ABar } from "./alpaca-fake.js";

const KEY_ID = "PKTESTKEYID0123456789";
const SECRET = "sEcReT/test+secret=0123456789abcdef";
const ENTRIES = [
  { sym: "AAPL", kind: "stock" as const },
  { sym: "BRK.B", kind: "stock" as const },
  { sym: "MSFT", kind: "stock" as const },
  { sym: "SPY", kind: "etf" as const },
  { sym: "BTC-USD", kind: "crypto" as const },
  { sym: "ETH-USD", kind: "crypto" as const },
];
/** Late enough that every bar of the series is settled. */
const LATER = new Date("2026-12-15T00:00:00Z");
const HISTORY_FROM = "2025-06-02";
const HISTORY_TO = "2026-11-30";

function days(from: string, to: string, keep: (d: string) => boolean = () => true): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) if (keep(d)) out.push(d);
  return out;
}

function bar(seed: number, i: number, t: string): ABar {
  const c = 50 + (seed % 97) + i * 0.01;
  return { t, o: c - 0.5, h: c + 1, l: c - 1, c, v: 1_000_000 + i, n: 1000, vw: c };
}

/** Midnight New York of a date, as Alpaca stamps equity daily bars (04:00Z in summer, 05:00Z in winter). */
function nyMidnight(day: string): string {
  return nyDate(new Date(`${day}T04:00:00Z`)) === day ? `${day}T04:00:00Z` : `${day}T05:00:00Z`;
}

function equitySeries(seed: number, from = HISTORY_FROM, to = HISTORY_TO): ABar[] {
  return days(from, to, isTradingDay).map((day, i) => bar(seed, i, nyMidnight(day)));
}

function cryptoSeries(seed: number, from = HISTORY_FROM, to = HISTORY_TO): ABar[] {
  return days(from, to).map((day, i) => bar(seed, i, `${day}T00:00:00Z`));
}

function minuteSeries(seed: number, fromMs: number, toMs: number): ABar[] {
  const out: ABar[] = [];
  for (let t = fromMs, i = 0; t <= toMs; t += 300_000, i++) out.push({ ...bar(seed, i, new Date(t).toISOString()), v: 2 });
  return out;
}

let fake: FakeAlpaca;
beforeEach(async () => {
  fake = await new FakeAlpaca().start();
  fake.keyId = KEY_ID;
  fake.secretKey = SECRET;
  ENTRIES.forEach((e, i) => fake.daily.set(alpacaSymbol(e), e.kind === "crypto" ? cryptoSeries(i) : equitySeries(i)));
});
afterEach(async () => {
  await fake.stop();
});

type Warned = { obj: object; msg: string };

function provider(opts: Partial<AlpacaOptions> = {}, warned: Warned[] = [], entries: readonly { sym: string; kind: UniverseEntry["kind"] }[] = ENTRIES) {
  return createAlpacaProvider(entries, {
    keyId: KEY_ID,
    secretKey: SECRET,
    baseUrl: fake.base,
    requestsPerMinute: 60_000,
    backoffBaseMs: 5,
    timeoutMs: 2_000,
    now: () => LATER,
    log: { warn: (obj, msg) => warned.push({ obj, msg }) },
    ...opts,
  });
}

async function errorOf(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  const e = err as Error;
  for (const secret of [KEY_ID, SECRET, encodeURIComponent(SECRET)]) {
    expect(e.message).not.toContain(secret);
    expect(JSON.stringify(e)).not.toContain(secret);
  }
  return e;
}

describe("AlpacaProvider daily bars", () => {
  it("says what it is: vendor alpaca, its feed and delay", () => {
    const p = provider();
    expect(p.info).toMatchObject({ name: "vendor", vendor: "alpaca", feed: "iex", delay: "real_time", simulated: false });
    expect(provider({ feed: "sip" }).info).toMatchObject({ feed: "sip", delay: "real_time" });
    expect(provider({ feed: "delayed_sip" }).info).toMatchObject({ feed: "delayed_sip", delay: "delayed_15m" });
    for (const s of [KEY_ID, SECRET, fake.base]) expect(JSON.stringify(p.info)).not.toContain(s);
  });

  it("spells symbols as Alpaca does: BRK.B as it is, BTC-USD as BTC/USD", () => {
    expect(alpacaSymbol({ sym: "BRK.B", kind: "stock" })).toBe("BRK.B");
    expect(alpacaSymbol({ sym: "BTC-USD", kind: "crypto" })).toBe("BTC/USD");
    expect(alpacaSymbol({ sym: "ETH-USD", kind: "crypto" })).toBe("ETH/USD");
  });

  it("reads adjusted daily bars with the key in headers only, dated by the New York date", async () => {
    const p = provider();
    const bars = await p.dailyBars("BRK.B", "2026-11-20", 3);
    expect(bars.map((b) => b.date)).toEqual(["2026-11-18", "2026-11-19", "2026-11-20"]);
    const src = fake.daily.get("BRK.B")!.find((b) => b.t.startsWith("2026-11-20"))!;
    expect(src.t).toBe("2026-11-20T05:00:00Z");
    expect(bars[2]).toEqual({ date: "2026-11-20", open: src.o, high: src.h, low: src.l, close: src.c, volume: src.v });
    // Before the clocks change a bar is stamped 04:00Z and still belongs to its New York date.
    expect((await p.dailyBars("BRK.B", "2026-10-30", 1))[0]?.date).toBe("2026-10-30");

    const seen = fake.seen[0]!;
    expect(seen.path).toBe("/v2/stocks/bars");
    expect(seen.query.get("symbols")).toBe("BRK.B");
    expect(seen.query.get("timeframe")).toBe("1Day");
    expect(seen.query.get("adjustment")).toBe("all");
    expect(seen.query.get("feed")).toBe("iex");
    expect(seen.query.get("limit")).toBe("10000");
    expect(seen.headers["apca-api-key-id"]).toBe(KEY_ID);
    expect(seen.headers["apca-api-secret-key"]).toBe(SECRET);
    for (const s of fake.seen) {
      expect(s.query.toString()).not.toContain(KEY_ID);
      expect(s.query.toString()).not.toContain(encodeURIComponent(SECRET));
    }
  });

  it("reads crypto without a key, BTC/USD dated by the UTC day; stocks without a key fail at start", async () => {
    const crypto = ENTRIES.filter((e) => e.kind === "crypto");
    const p = provider({ keyId: undefined, secretKey: undefined }, [], crypto);
    const btc = await p.dailyBars("BTC-USD", "2026-11-22", 3);
    expect(btc.map((b) => b.date)).toEqual(["2026-11-20", "2026-11-21", "2026-11-22"]);
    expect(fake.seen[0]!.path).toBe("/v1beta3/crypto/us/bars");
    expect(fake.seen[0]!.query.get("symbols")).toBe("BTC/USD");
    expect(fake.seen[0]!.headers["apca-api-key-id"]).toBeUndefined();
    expect(fake.seen[0]!.headers["apca-api-secret-key"]).toBeUndefined();

    expect(() => provider({ keyId: undefined, secretKey: undefined })).toThrow(/stocks and ETFs .* need an Alpaca key \(APCA_API_KEY_ID and APCA_API_SECRET_KEY\)/);
    expect(() => provider({ secretKey: undefined })).toThrow(/both the key id and the secret key/);
    expect(fake.seen).toHaveLength(1);
  });

  it("never refetches settled days; a tail that can still change is fetched again once it is stale", async () => {
    // 13:00 New York on Friday 2026-11-20: that day's bar is live, the 19th is settled.
    let now = new Date("2026-11-20T18:00:00Z");
    const p = provider({ now: () => now });
    await p.dailyBars("AAPL", "2026-11-20", 20);
    await p.dailyBars("AAPL", "2026-11-20", 20); // fresh: answered from the fetched tail
    expect(fake.seen).toHaveLength(1);
    now = new Date(now.getTime() + 6 * 60_000);
    await p.dailyBars("AAPL", "2026-11-20", 20);
    expect(fake.seen).toHaveLength(2);
    expect(fake.seen[1]!.query.get("start")).toBe("2026-11-20T00:00:00Z");
    expect(fake.seen[1]!.query.get("end")).toBe("2026-11-20T23:59:59Z");
    await p.dailyBars("AAPL", "2026-11-19", 10); // settled, within the first range
    expect(fake.seen).toHaveLength(2);

    // Once everything is settled, no range of a later read reaches back into a fetched day.
    now = LATER;
    await p.dailyBars("AAPL", "2026-11-25", 40);
    // The missing head ends the day before the first range began; the tail starts at the 20th,
    // fetched once more, the last time: it is settled now.
    const firstStart = fake.seen[0]!.query.get("start")!.slice(0, 10);
    expect(fake.seen.slice(2).map((s) => [s.query.get("start")!.slice(0, 10), s.query.get("end")!.slice(0, 10)])).toEqual([
      [addTradingDays("2026-11-25", -44), addDays(firstStart, -1)],
      ["2026-11-20", "2026-11-25"],
    ]);
    await p.dailyBars("AAPL", "2026-11-25", 40);
    await p.dailyBars("AAPL", "2026-11-24", 30);
    expect(fake.seen).toHaveLength(4);
  });

  it("follows next_page_token with the other parameters unchanged", async () => {
    const p = provider();
    const symbols = ENTRIES.filter((e) => e.kind !== "crypto");
    // 30 names of 345 bars each do not fit a page of 10 000 data points.
    const many = Array.from({ length: 30 }, (_, i) => ({ sym: `T${i}`, kind: "stock" as const }));
    for (const [i, e] of many.entries()) fake.daily.set(e.sym, equitySeries(i));
    const q = provider({}, [], [...symbols, ...many]);
    await q.prepareScan([...symbols, ...many], { through: "2026-11-20", count: 340, at: new Date("2026-11-21T12:00:00Z"), intraday: false });
    expect(fake.seen.map((s) => s.query.get("page_token") !== null)).toEqual([false, true]);
    const [first, second] = fake.seen as [(typeof fake.seen)[0], (typeof fake.seen)[0]];
    for (const k of ["symbols", "timeframe", "start", "end", "feed", "adjustment", "limit"]) expect(second.query.get(k)).toBe(first.query.get(k));
    // Every name answers from what was fetched, the one split across two pages included.
    for (const e of [...symbols, ...many]) expect(await q.dailyBars(e.sym, "2026-11-20", 340)).toHaveLength(340);
    expect(fake.seen).toHaveLength(2);
    expect(p.requests).toBe(0);
  });
});

describe("AlpacaProvider whole-market scans", () => {
  const universe = loadUniverse();
  const at = new Date("2026-11-23T17:00:00Z"); // Monday 12:00 New York
  const plan: ScanPlan = { through: "2026-11-20", count: 340, at, intraday: true };

  function fillUniverse(): void {
    const usClose = previousSession(at).close.getTime();
    const from = Math.floor(usClose / 86_400_000) * 86_400_000;
    universe.entries.forEach((e, i) => {
      const s = alpacaSymbol(e);
      if (e.kind === "crypto") {
        fake.daily.set(s, cryptoSeries(i));
        fake.minute.set(s, minuteSeries(i, from, at.getTime() + 3_600_000));
      } else {
        fake.daily.set(s, equitySeries(i));
        fake.dailyBar.set(s, bar(i, 0, "2026-11-23T05:00:00Z"));
      }
    });
  }

  it("fetches all 565 names in a handful of requests, and reads nothing more", async () => {
    fillUniverse();
    let now = at;
    const p = new AlpacaProvider(universe.entries, { keyId: KEY_ID, secretKey: SECRET, baseUrl: fake.base, requestsPerMinute: 60_000, now: () => now });
    const equities = universe.entries.filter((e) => e.kind !== "crypto").length;
    expect(equities).toBe(563);
    const chunks = Math.ceil(equities / CHUNK);
    expect(chunks).toBe(3);

    // First start: 345 bars (340 and a slack of 5) of 563 names is 194 235 data points, 10 000 a
    // page: 7 + 7 + 6 pages for the chunks of 200, 200 and 163; one request of the crypto daily
    // bars; one snapshots request per chunk; one of the crypto 5-minute bars. snapshot.ts's
    // collectBars prepares the scan, then reads every name: all answered from what was prepared.
    const o = { universe, provider: p, at, intraday: true, asofDaily: "2026-11-23" };
    const series = await collectBars(o);
    expect(fake.count("/v2/stocks/bars")).toBe(20);
    expect(fake.count("/v1beta3/crypto/us/bars")).toBe(2);
    expect(fake.count("/v2/stocks/snapshots")).toBe(3);
    expect(fake.seen).toHaveLength(25);
    for (const s of fake.seen.filter((x) => x.path !== "/v1beta3/crypto/us/bars")) expect(s.query.get("symbols")!.split(",").length).toBeLessThanOrEqual(CHUNK);
    expect(series.size).toBe(565);
    expect(series.stale ?? []).toEqual([]);
    expect(series.get("AAPL")!.bars).toHaveLength(340);
    expect(series.get("AAPL")!.bars.at(-1)!.date).toBe("2026-11-23");
    expect(series.get("BRK.B")!.partial).toBe(true);
    expect(series.get("BTC-USD")!.bars.at(-1)!.date).toBe("2026-11-23");
    const quotes = await cryptoQuotes(o, series);
    expect(quotes.quotes.map((q) => q.sym).sort()).toEqual(["BTC-USD", "ETH-USD"]);
    expect(fake.seen).toHaveLength(25);

    // Next scan, five minutes on: the settled history is cached; the three snapshots requests and
    // the crypto minutes are asked again, and that is all.
    now = new Date(at.getTime() + 5 * 60_000);
    const next = { ...o, at: now };
    await cryptoQuotes(next, await collectBars(next));
    expect(fake.seen.slice(25).map((s) => s.path)).toEqual([
      "/v2/stocks/snapshots",
      "/v2/stocks/snapshots",
      "/v2/stocks/snapshots",
      "/v1beta3/crypto/us/bars",
    ]);
  });

  it("asks nothing of a session that has not begun (a morning scan), and reads no name alone for it", async () => {
    let now = new Date("2026-11-23T13:00:00Z"); // Monday 08:00 New York, before the open
    const p = provider({ now: () => now });
    const morning: ScanPlan = { through: "2026-11-23", count: 20, at: now, intraday: false };
    await p.prepareScan(ENTRIES, morning);
    const first = fake.seen.length;
    expect(fake.seen.map((s) => s.path)).toEqual(["/v2/stocks/bars", "/v1beta3/crypto/us/bars", "/v1beta3/crypto/us/bars"]);
    now = new Date(now.getTime() + 10 * 60_000);
    await p.prepareScan(ENTRIES, { ...morning, at: now });
    for (const e of ENTRIES.filter((x) => x.kind !== "crypto")) expect(await p.dailyBars(e.sym, "2026-11-23", 20)).toHaveLength(20);
    // The second scan asked only the crypto minutes again: no equity request for the 23rd.
    expect(fake.seen.slice(first).map((s) => s.path)).toEqual(["/v1beta3/crypto/us/bars"]);
  });

  it("fetches a name left out of a multi-symbol answer on its own", async () => {
    fake.dropInMulti.add("MSFT");
    const p = provider();
    await p.prepareScan(ENTRIES, { through: "2026-11-20", count: 60, at: new Date("2026-11-21T12:00:00Z"), intraday: false });
    const before = fake.seen.length;
    expect(fake.seen[0]!.query.get("symbols")).toBe("AAPL,BRK.B,MSFT,SPY");
    expect(await p.dailyBars("AAPL", "2026-11-20", 60)).toHaveLength(60);
    expect(fake.seen).toHaveLength(before);
    expect(await p.dailyBars("MSFT", "2026-11-20", 60)).toHaveLength(60);
    expect(fake.seen).toHaveLength(before + 1);
    expect(fake.seen.at(-1)!.query.get("symbols")).toBe("MSFT");
  });

  it("gives no partial bar before the day's first trade, and none while the market is shut", async () => {
    fake.dailyBar.set("AAPL", bar(1, 0, "2026-11-20T05:00:00Z")); // still Friday's
    fake.dailyBar.set("SPY", bar(2, 0, "2026-11-23T05:00:00Z"));
    const p = provider({ now: () => at });
    await p.prepareScan(ENTRIES.filter((e) => e.sym === "AAPL" || e.sym === "SPY"), { ...plan, count: 0 });
    expect(fake.seen.map((s) => [s.path, s.query.get("feed")])).toEqual([["/v2/stocks/snapshots", "iex"]]);
    expect(await p.intradayBar("AAPL", at)).toBeNull();
    expect(await p.intradayBar("SPY", at)).toMatchObject({ date: "2026-11-23", close: bar(2, 0, "").c });
    expect(await p.intradayBar("SPY", new Date("2026-11-22T17:00:00Z"))).toBeNull(); // Sunday
    expect(fake.seen).toHaveLength(1);
  });
});

describe("AlpacaProvider partial bars without a prepared scan", () => {
  it("aggregates the session's 5-minute bars up to the instant asked", async () => {
    const open = Date.parse("2026-11-23T14:30:00Z");
    fake.minute.set("AAPL", minuteSeries(1, open - 3_600_000, open + 3 * 3_600_000)); // pre-market included
    const at = new Date(open + 3_600_000 + 60_000); // 10:31 New York
    const p = provider({ now: () => at });
    const got = await p.intradayBar("AAPL", at);
    const inSession = fake.minute.get("AAPL")!.filter((b) => Date.parse(b.t) >= open && Date.parse(b.t) <= at.getTime());
    expect(inSession).toHaveLength(13);
    expect(got).toEqual({
      date: "2026-11-23",
      open: inSession[0]!.o,
      high: Math.max(...inSession.map((b) => b.h)),
      low: Math.min(...inSession.map((b) => b.l)),
      close: inSession.at(-1)!.c,
      volume: inSession.reduce((v, b) => v + b.v, 0),
    });
    expect(fake.seen[0]!.query.get("timeframe")).toBe("5Min");
    expect(fake.seen[0]!.query.get("start")).toBe("2026-11-23T14:30:00.000Z");

    // Crypto: the UTC day's 5-minute bars, without a key.
    fake.minute.set("BTC/USD", minuteSeries(3, Date.parse("2026-11-23T00:00:00Z"), at.getTime()));
    const btc = await p.intradayBar("BTC-USD", at);
    expect(btc?.date).toBe("2026-11-23");
    expect(btc?.open).toBe(fake.minute.get("BTC/USD")![0]!.o);
    expect(fake.seen[1]!.headers["apca-api-key-id"]).toBeUndefined();
  });
});

describe("AlpacaProvider errors", () => {
  it("waits for Retry-After on 429 and retries", async () => {
    const warned: Warned[] = [];
    fake.script.push({ status: 429, body: JSON.stringify({ message: "too many requests." }), headers: { "retry-after": "1" } });
    const p = provider({}, warned);
    const t0 = performance.now();
    expect(await p.dailyBars("AAPL", "2026-11-20", 5)).toHaveLength(5);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
    expect(fake.seen).toHaveLength(2);
    expect(warned).toHaveLength(1);
    expect((warned[0]!.obj as { delayMs: number }).delayMs).toBeGreaterThanOrEqual(1000);
  });

  it("retries 5xx and dropped connections, fails other 4xx at once, and never shows the key", async () => {
    const warned: Warned[] = [];
    fake.script.push({ status: 503, body: "unavailable" }, "destroy");
    const p = provider({}, warned);
    expect(await p.dailyBars("AAPL", "2026-11-20", 5)).toHaveLength(5);
    expect(fake.seen).toHaveLength(3);

    // A body that repeats the key and the secret back.
    fake.script.push({ status: 422, body: JSON.stringify({ message: `invalid request from ${KEY_ID} ${SECRET}` }) });
    const e = await errorOf(p.dailyBars("SPY", "2026-11-20", 5));
    expect(e.message).toMatch(/^alpaca: SPY: HTTP 422 from http:\/\/127\.0\.0\.1:\d+\/v2\/stocks\/bars\?.*invalid request from \*\*\* \*\*\*/);
    expect(fake.seen).toHaveLength(4);

    // A wrong key: 403, at once, with a clear word.
    const q = provider({ keyId: "PKWRONG", secretKey: "wrong-secret" });
    const f = await errorOf(q.dailyBars("AAPL", "2026-11-20", 5));
    expect(f.message).toMatch(/HTTP 403 .*key refused or the plan does not cover this feed/);
    expect(f.message).not.toContain("wrong-secret");

    fake.script.push(...Array.from({ length: 5 }, () => ({ status: 500, body: `boom ${SECRET}` })));
    const g = await errorOf(provider({ maxRetries: 2 }, warned).dailyBars("MSFT", "2026-11-20", 5));
    expect(g.message).toMatch(/giving up after 3 attempts/);
    expect(JSON.stringify(warned)).not.toContain(SECRET);
    expect(JSON.stringify(warned)).not.toContain(KEY_ID);
  });

  it("on delayed_sip asks SIP bars no later than 16 minutes ago and delayed SIP snapshots", async () => {
    const now = new Date("2026-11-23T17:00:00Z");
    fake.dailyBar.set("AAPL", bar(1, 0, "2026-11-23T05:00:00Z"));
    const p = provider({ feed: "delayed_sip", now: () => now });
    await p.prepareScan([{ sym: "AAPL", kind: "stock" }], { through: "2026-11-23", count: 5, at: now, intraday: true });
    const bars = fake.seen.find((s) => s.path === "/v2/stocks/bars")!;
    expect(bars.query.get("feed")).toBe("sip");
    expect(bars.query.get("end")).toBe("2026-11-23T16:44:00.000Z");
    expect(fake.seen.find((s) => s.path === "/v2/stocks/snapshots")!.query.get("feed")).toBe("delayed_sip");
    expect(addTradingDays("2026-11-23", -1)).toBe("2026-11-20");
  });
});
