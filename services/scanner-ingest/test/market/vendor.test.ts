import { isTradingDay } from "@board/market-calendar";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addDays } from "../../src/market/days.js";
import { PolygonProvider, polygonTicker, retryAfterMs, type VendorOptions } from "../../src/market/vendor.js";
import { FakePolygon, type Agg, type DailyAgg } from "./polygon-fake.js";

const KEY = "pk_SECRET-test-key-0123456789";
const ENTRIES = [
  { sym: "AAPL", kind: "stock" as const },
  { sym: "BRK.B", kind: "stock" as const },
  { sym: "SPY", kind: "etf" as const },
  { sym: "BTC-USD", kind: "crypto" as const },
  { sym: "ETH-USD", kind: "crypto" as const },
];
/** Late enough that every bar of the series is settled (cacheable). */
const LATER = new Date("2026-12-15T00:00:00Z");
const HOUR = 3_600_000;

function days(from: string, to: string, keep: (d: string) => boolean = () => true): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) if (keep(d)) out.push(d);
  return out;
}

function agg(i: number, t: number): Agg {
  const c = 100 + i;
  return { o: c - 0.5, h: c + 1, l: c - 1, c, v: 1_000_000 + i, vw: c, t, n: 1000 };
}

/** Equity daily bars as Polygon stamps them: midnight New York (EDT 04:00Z until 2026-11-01, then EST 05:00Z). */
function equitySeries(from: string, to: string): DailyAgg[] {
  return days(from, to, isTradingDay).map((day, i) => ({ ...agg(i, Date.parse(`${day}T00:00:00Z`) + (day < "2026-11-01" ? 4 : 5) * HOUR), day }));
}

/** Crypto daily bars: one per UTC day, stamped 00:00Z. */
function cryptoSeries(from: string, to: string): DailyAgg[] {
  return days(from, to).map((day, i) => ({ ...agg(i, Date.parse(`${day}T00:00:00Z`)), day }));
}

let fake: FakePolygon;
beforeEach(async () => {
  fake = await new FakePolygon().start();
  fake.daily.set("AAPL", equitySeries("2026-08-03", "2026-11-30"));
  fake.daily.set("BRK.B", equitySeries("2026-08-03", "2026-11-30"));
  fake.daily.set("SPY", equitySeries("2026-08-03", "2026-11-30"));
  fake.daily.set("X:BTCUSD", cryptoSeries("2026-10-01", "2026-11-30"));
  fake.daily.set("X:ETHUSD", cryptoSeries("2026-10-01", "2026-11-30"));
});
afterEach(async () => {
  await fake.stop();
});

type Warned = { obj: object; msg: string };

function provider(opts: Partial<VendorOptions> = {}, warned: Warned[] = []): PolygonProvider {
  return new PolygonProvider(ENTRIES, {
    apiKey: KEY,
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
  expect(e.message).not.toContain(KEY);
  expect(JSON.stringify(e)).not.toContain(KEY);
  return e;
}

const json = (body: unknown) => JSON.stringify(body);

describe("PolygonProvider daily bars", () => {
  it("maps tickers as Polygon spells them", () => {
    expect(polygonTicker({ sym: "BTC-USD", kind: "crypto" })).toBe("X:BTCUSD");
    expect(polygonTicker({ sym: "ETH-USD", kind: "crypto" })).toBe("X:ETHUSD");
    expect(polygonTicker({ sym: "BRK.B", kind: "stock" })).toBe("BRK.B");
  });

  it("dates an equity bar by its New York date and maps the fields", async () => {
    const p = provider();
    expect(p.info.name).toBe("vendor");
    expect(p.info.simulated).toBe(false);
    expect(p.info.detail).not.toContain(KEY);
    const bars = await p.dailyBars("AAPL", "2026-11-20", 3);
    expect(bars.map((b) => b.date)).toEqual(["2026-11-18", "2026-11-19", "2026-11-20"]);
    const src = fake.daily.get("AAPL")!.find((a) => a.day === "2026-11-20")!;
    expect(new Date(src.t).toISOString()).toBe("2026-11-20T05:00:00.000Z");
    expect(bars[2]).toEqual({ date: "2026-11-20", open: src.o, high: src.h, low: src.l, close: src.c, volume: src.v });

    // Before the clocks change a bar is stamped 04:00Z and still belongs to its New York date.
    const oct = await p.dailyBars("AAPL", "2026-10-30", 1);
    expect(oct[0]?.date).toBe("2026-10-30");

    const seen = fake.seen[0]!;
    expect(seen.path).toMatch(/^\/v2\/aggs\/ticker\/AAPL\/range\/1\/day\/\d{4}-\d{2}-\d{2}\/2026-11-20$/);
    expect(seen.query.get("adjusted")).toBe("true");
    expect(seen.query.get("sort")).toBe("asc");
    expect(seen.query.get("limit")).toBe("50000");
    expect(seen.query.get("apiKey")).toBe(KEY);
  });

  it("ends on the last session when `through` is a weekend, and returns fewer bars when history is short", async () => {
    const p = provider();
    expect((await p.dailyBars("SPY", "2026-11-22", 2)).map((b) => b.date)).toEqual(["2026-11-19", "2026-11-20"]);
    expect(await p.dailyBars("SPY", "2026-11-20", 500)).toHaveLength(fake.daily.get("SPY")!.filter((a) => a.day <= "2026-11-20").length);
    expect(await p.dailyBars("SPY", "2026-11-20", 0)).toEqual([]);
  });

  it("sends BRK.B as it is and crypto as X:BTCUSD, dated by the UTC day", async () => {
    const p = provider();
    expect(await p.dailyBars("BRK.B", "2026-11-20", 1)).toHaveLength(1);
    expect(fake.seen[0]!.path).toContain("/v2/aggs/ticker/BRK.B/range/1/day/");

    const btc = await p.dailyBars("BTC-USD", "2026-11-22", 3);
    expect(fake.seen[1]!.path).toContain("/v2/aggs/ticker/X:BTCUSD/range/1/day/");
    // Every calendar day, the weekend included; 00:00Z belongs to that UTC date.
    expect(btc.map((b) => b.date)).toEqual(["2026-11-20", "2026-11-21", "2026-11-22"]);
    const src = fake.daily.get("X:BTCUSD")!.find((a) => a.day === "2026-11-21")!;
    expect(new Date(src.t).toISOString()).toBe("2026-11-21T00:00:00.000Z");
    expect(btc[1]!.close).toBe(src.c);
  });

  it("follows next_url pages, with the key appended", async () => {
    fake.pageSize = 7;
    const p = provider();
    const bars = await p.dailyBars("AAPL", "2026-11-20", 30);
    expect(bars).toHaveLength(30);
    expect(bars.map((b) => b.date)).toEqual(
      fake.daily
        .get("AAPL")!
        .filter((a) => a.day <= "2026-11-20")
        .slice(-30)
        .map((a) => a.day),
    );
    // 35 bars asked (30 and a slack of 5): five pages of 7.
    expect(fake.seen).toHaveLength(5);
    expect(fake.seen.slice(1).map((s) => s.query.get("cursor"))).toEqual(["7", "14", "21", "28"]);
    for (const s of fake.seen) expect(s.query.get("apiKey")).toBe(KEY);
  });

  it("does not follow a next_url to another host (the key stays home)", async () => {
    fake.pageSize = 7;
    fake.nextBase = "http://127.0.0.2:9";
    const e = await errorOf(provider().dailyBars("AAPL", "2026-11-20", 30));
    expect(e.message).toMatch(/vendor: AAPL: next_url points to http:\/\/127\.0\.0\.2:9.*not followed/);
    expect(fake.seen).toHaveLength(1);
  });

  it("caches settled bars per symbol and fetches only the missing tail", async () => {
    const p = provider();
    const a = await p.dailyBars("AAPL", "2026-11-20", 20);
    expect(await p.dailyBars("AAPL", "2026-11-20", 20)).toEqual(a);
    expect(await p.dailyBars("AAPL", "2026-11-19", 10)).toEqual(a.slice(9, 19));
    expect(fake.seen).toHaveLength(1);

    const b = await p.dailyBars("AAPL", "2026-11-25", 20);
    expect(fake.seen).toHaveLength(2);
    expect(fake.seen[1]!.path).toMatch(/\/range\/1\/day\/2026-11-21\/2026-11-25$/);
    expect(b.map((x) => x.date).at(-1)).toBe("2026-11-25");
    expect(b.slice(0, 17)).toEqual(a.slice(3));

    // Asking further back fetches only the missing head, and the merged cache serves both.
    const c = await p.dailyBars("AAPL", "2026-11-25", 60);
    expect(c).toHaveLength(60);
    expect(c.slice(-20)).toEqual(b);
    expect(fake.seen).toHaveLength(3);
    const firstFrom = fake.seen[0]!.path.split("/").at(-2)!;
    expect(fake.seen[2]!.path.split("/").at(-1)).toBe(addDays(firstFrom, -1));
    await p.dailyBars("AAPL", "2026-11-20", 50);
    expect(fake.seen).toHaveLength(3);
  });

  it("serves concurrent reads of one symbol from one fetch", async () => {
    const p = provider();
    const [x, y] = await Promise.all([p.dailyBars("SPY", "2026-11-20", 10), p.dailyBars("SPY", "2026-11-20", 10)]);
    expect(x).toEqual(y);
    expect(fake.seen).toHaveLength(1);
  });

  it("does not cache a day that can still change", async () => {
    // 13:00 New York on 2026-11-20: that day's bar is live, the 19th is settled.
    const p = provider({ now: () => new Date("2026-11-20T18:00:00Z") });
    await p.dailyBars("AAPL", "2026-11-20", 5);
    await p.dailyBars("AAPL", "2026-11-20", 5);
    expect(fake.seen).toHaveLength(2);
    expect(fake.seen[1]!.path).toMatch(/\/2026-11-20\/2026-11-20$/);
    await p.dailyBars("AAPL", "2026-11-19", 4); // settled, and within the first range
    expect(fake.seen).toHaveLength(2);

    // Crypto: the UTC day in progress, and the one just ended (30 minutes' grace), are not cached.
    const q = provider({ now: () => new Date("2026-11-21T00:10:00Z") });
    await q.dailyBars("BTC-USD", "2026-11-20", 5);
    await q.dailyBars("BTC-USD", "2026-11-20", 5);
    expect(fake.seen.slice(2).map((s) => s.path.split("/").slice(-2).join("/"))).toEqual([
      expect.stringMatching(/\/2026-11-20$/),
      "2026-11-20/2026-11-20",
    ]);
  });

  it("throws on a symbol outside the universe", async () => {
    await expect(provider().dailyBars("NVDA", "2026-11-20", 5)).rejects.toThrow(/unknown symbol "NVDA"/);
    await expect(provider().intradayBar("NVDA", new Date())).rejects.toThrow(/unknown symbol "NVDA"/);
  });
});

describe("PolygonProvider errors and retries", () => {
  it("waits for Retry-After on a 429, then succeeds", async () => {
    fake.script.push({ status: 429, headers: { "retry-after": "1" }, body: json({ status: "ERROR", error: "too many requests" }) });
    const warned: Warned[] = [];
    const p = provider({ backoffBaseMs: 1 }, warned);
    const t0 = performance.now();
    expect(await p.dailyBars("AAPL", "2026-11-20", 5)).toHaveLength(5);
    expect(fake.seen).toHaveLength(2);
    expect(fake.seen[1]!.at - fake.seen[0]!.at).toBeGreaterThanOrEqual(995);
    expect(performance.now() - t0).toBeLessThan(3_000);
    expect(warned).toHaveLength(1);
    expect(JSON.stringify(warned)).not.toContain(KEY);
    expect(JSON.stringify(warned)).toContain("apiKey=***");
  });

  it("retries a 500, then succeeds", async () => {
    fake.script.push({ status: 500, body: "internal error" });
    const p = provider();
    expect(await p.dailyBars("AAPL", "2026-11-20", 5)).toHaveLength(5);
    expect(fake.seen).toHaveLength(2);
    expect(p.requests).toBe(2);
  });

  it("retries a dropped connection and a timeout", async () => {
    fake.script.push("destroy", "hang");
    const p = provider({ timeoutMs: 200 });
    expect(await p.dailyBars("AAPL", "2026-11-20", 5)).toHaveLength(5);
    expect(fake.seen).toHaveLength(3);
  });

  it("gives up after the configured retries with exponential backoff", async () => {
    fake.script.push(...Array.from({ length: 5 }, () => ({ status: 503, body: "unavailable" })));
    const warned: Warned[] = [];
    const p = provider({ maxRetries: 2, backoffBaseMs: 100 }, warned);
    const e = await errorOf(p.dailyBars("AAPL", "2026-11-20", 5));
    expect(e.message).toMatch(/^vendor: AAPL: giving up after 3 attempts: HTTP 503/);
    expect(e.message).toContain("apiKey=***");
    expect(fake.seen).toHaveLength(3);
    // Backoff: 50-100 ms before the first retry, 100-200 ms before the second.
    const gap1 = fake.seen[1]!.at - fake.seen[0]!.at;
    const gap2 = fake.seen[2]!.at - fake.seen[1]!.at;
    expect(gap1).toBeGreaterThanOrEqual(45);
    expect(gap2).toBeGreaterThanOrEqual(95);
    expect(warned.map((w) => (w.obj as { attempt: number }).attempt)).toEqual([1, 2]);
    expect(JSON.stringify(warned)).not.toContain(KEY);
  });

  it("fails at once on 401 with a clear message that never shows the key", async () => {
    fake.script.push({ status: 401, body: json({ status: "ERROR", request_id: "x", error: `Unknown API Key ${KEY}` }) });
    const e = await errorOf(provider().dailyBars("AAPL", "2026-11-20", 5));
    expect(e.message).toMatch(/^vendor: AAPL: invalid or missing API key \(HTTP 401 from http:\/\/127\.0\.0\.1:\d+\/v2\/aggs\/ticker\/AAPL\/.*apiKey=\*\*\*\)$/);
    expect(fake.seen).toHaveLength(1);

    fake.script.push({ status: 403, body: json({ status: "NOT_AUTHORIZED", message: "You are not entitled to this data." }) });
    const f = await errorOf(provider().dailyBars("BTC-USD", "2026-11-20", 5));
    expect(f.message).toMatch(/^vendor: BTC-USD \(X:BTCUSD\): invalid or missing API key \(HTTP 403/);
    expect(fake.seen).toHaveLength(2);
  });

  it("fails at once on another 4xx, redacting the key even where the body echoes it", async () => {
    fake.script.push({ status: 400, body: json({ status: "ERROR", error: `bad request: ${fake.base}/v2/aggs?apiKey=${KEY}&x=1 (key ${KEY})` }) });
    const e = await errorOf(provider().dailyBars("AAPL", "2026-11-20", 5));
    expect(e.message).toMatch(/^vendor: AAPL: HTTP 400 from .*: .*bad request/);
    expect(fake.seen).toHaveLength(1);
  });

  it("rejects a malformed JSON body", async () => {
    fake.script.push({ status: 200, body: '{"status":"OK","results":[{"o":1,' });
    const e = await errorOf(provider().dailyBars("AAPL", "2026-11-20", 5));
    expect(e.message).toMatch(/^vendor: AAPL: malformed JSON from http:\/\/127\.0\.0\.1:\d+\/.*apiKey=\*\*\*: \{"status":"OK"/);
    expect(fake.seen).toHaveLength(1);
  });

  it("rejects a body of the wrong shape", async () => {
    fake.script.push({ status: 200, body: json({ status: "OK", results: [{ o: "1", h: 2, l: 1, c: 1, v: 1, t: 0 }] }) });
    const e = await errorOf(provider().dailyBars("AAPL", "2026-11-20", 5));
    expect(e.message).toMatch(/^vendor: AAPL: unexpected response from .* \(results\.0\.o: /);
  });

  it('rejects status "ERROR", quoting the vendor\'s error', async () => {
    fake.script.push({ status: 200, body: json({ status: "ERROR", request_id: "abc", error: "Something went wrong" }) });
    const e = await errorOf(provider().dailyBars("ETH-USD", "2026-11-20", 5));
    expect(e.message).toMatch(/^vendor: ETH-USD \(X:ETHUSD\): status ERROR from .*: Something went wrong$/);
    expect(fake.seen).toHaveLength(1);
  });

  it("accepts status DELAYED", async () => {
    fake.script.push({
      status: 200,
      body: json({ ticker: "AAPL", status: "DELAYED", resultsCount: 1, results: [{ ...agg(0, Date.parse("2026-11-20T05:00:00Z")) }] }),
    });
    expect(await provider().dailyBars("AAPL", "2026-11-20", 5)).toEqual([
      { date: "2026-11-20", open: 99.5, high: 101, low: 99, close: 100, volume: 1_000_000 },
    ]);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("1")).toBe(1000);
    expect(retryAfterMs("2.5")).toBe(2500);
    expect(retryAfterMs(null)).toBeUndefined();
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs("Wed, 21 Oct 2026 07:28:05 GMT", Date.parse("2026-10-21T07:28:00Z"))).toBe(5000);
  });

  it("close() rejects requests waiting for the rate limiter", async () => {
    const p = provider({ requestsPerMinute: 1 });
    await p.dailyBars("AAPL", "2026-11-20", 5);
    const waiting = p.dailyBars("SPY", "2026-11-20", 5);
    await new Promise((r) => setTimeout(r, 20));
    p.close();
    await expect(waiting).rejects.toThrow(/provider closed/);
    expect(fake.seen).toHaveLength(1);
  });
});

describe("PolygonProvider HTTP client", () => {
  it("sends every request through the injected fetch", async () => {
    const urls: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      urls.push(String(input));
      return fetch(input, init);
    };
    const p = provider({ fetch: recording });
    expect(await p.dailyBars("AAPL", "2026-11-20", 3)).toHaveLength(3);
    expect(urls).toHaveLength(1);
    expect(urls[0]).toContain("/v2/aggs/ticker/AAPL/range/1/day/");
    expect(fake.seen).toHaveLength(1);

    // A replaying fetch never reaches the network.
    const replay: typeof fetch = async () =>
      new Response(JSON.stringify({ status: "OK", results: [agg(7, Date.parse("2026-11-20T05:00:00Z"))] }), { status: 200 });
    expect(await provider({ fetch: replay }).dailyBars("SPY", "2026-11-20", 1)).toEqual([
      { date: "2026-11-20", open: 106.5, high: 108, low: 106, close: 107, volume: 1_000_007 },
    ]);
    expect(fake.seen).toHaveLength(1);
  });

  it("labels its prices by plan", () => {
    expect(provider().info).toMatchObject({ name: "vendor", vendor: "polygon", feed: "basic", delay: "end_of_day", simulated: false });
    expect(provider().intraday).toBe(false);
    expect(provider({ plan: "developer" }).info.delay).toBe("delayed_15m");
    expect(provider({ plan: "advanced" }).info.delay).toBe("real_time");
    expect(provider({ plan: "advanced" }).intraday).toBe(true);
  });
});

describe("PolygonProvider rate limiter", () => {
  it("spaces requests at the configured rate (120 a minute: 500 ms apart)", async () => {
    const p = provider({ requestsPerMinute: 120 });
    const t0 = performance.now();
    await Promise.all(["AAPL", "BRK.B", "SPY", "BTC-USD"].map((s) => p.dailyBars(s, "2026-11-20", 5)));
    expect(fake.seen).toHaveLength(4);
    expect(fake.seen[0]!.at - t0).toBeLessThan(200);
    for (let i = 1; i < 4; i++) expect(fake.seen[i]!.at - fake.seen[i - 1]!.at).toBeGreaterThanOrEqual(480);
    expect(fake.seen[3]!.at - fake.seen[0]!.at).toBeLessThan(2_500);
  });
});

describe("PolygonProvider intraday bar", () => {
  const OPEN = Date.parse("2026-11-20T14:30:00Z"); // 09:30 New York
  const STEP = 5 * 60_000;

  /** 5-minute bars from 08:00 to 16:00 New York: pre-market ones too, and a spike at 10:05. */
  function minuteSeries(start: number, n: number): Agg[] {
    return Array.from({ length: n }, (_, i) => {
      const o = 200 + i * 0.1;
      const spike = i === 25 ? 5 : 0;
      return { o, h: o + 0.3 + spike, l: o - 0.2 - spike / 10, c: o + 0.05, v: 100 + i, vw: o, t: start + i * STEP, n: 10 };
    });
  }

  it("aggregates the session's bars with a start at or before `at`", async () => {
    const series = minuteSeries(Date.parse("2026-11-20T13:00:00Z"), 96);
    fake.minute.set("AAPL", series);
    fake.minuteIgnoresRange = true; // the whole day comes back: the client must filter
    const at = new Date("2026-11-20T15:12:00Z"); // 10:12 New York
    const bar = await provider().intradayBar("AAPL", at);

    const used = series.filter((m) => m.t >= OPEN && m.t <= at.getTime());
    expect(used.map((m) => new Date(m.t).toISOString().slice(11, 16))).toEqual([
      "14:30", "14:35", "14:40", "14:45", "14:50", "14:55", "15:00", "15:05", "15:10",
    ]);
    expect(bar).toEqual({
      date: "2026-11-20",
      open: used[0]!.o,
      high: Math.max(...used.map((m) => m.h)),
      low: Math.min(...used.map((m) => m.l)),
      close: used.at(-1)!.c,
      volume: used.reduce((s, m) => s + m.v, 0),
    });
    expect(bar!.high).toBe(series[25]!.h); // the 15:05Z spike
    expect(fake.seen[0]!.path).toBe(`/v2/aggs/ticker/AAPL/range/5/minute/${OPEN}/${at.getTime()}`);
    expect(fake.seen[0]!.query.get("apiKey")).toBe(KEY);

    // A bar that starts exactly at `at` counts.
    const edge = await provider().intradayBar("AAPL", new Date("2026-11-20T15:10:00Z"));
    expect(edge?.close).toBe(used.at(-1)!.c);
  });

  it("is null while the market is shut (no request) or before the first bar", async () => {
    const p = provider();
    expect(await p.intradayBar("AAPL", new Date("2026-11-21T16:00:00Z"))).toBeNull(); // Saturday
    expect(await p.intradayBar("AAPL", new Date("2026-11-20T13:00:00Z"))).toBeNull(); // 08:00 New York
    expect(fake.seen).toHaveLength(0);
    expect(await p.intradayBar("AAPL", new Date("2026-11-20T14:31:00Z"))).toBeNull(); // no bars in the fake
    expect(fake.seen).toHaveLength(1);
  });

  it("crypto: the UTC day so far", async () => {
    const dayStart = Date.parse("2026-11-21T00:00:00Z");
    const series = [...minuteSeries(dayStart - 6 * STEP, 6), ...minuteSeries(dayStart, 30)];
    fake.minute.set("X:BTCUSD", series);
    fake.minuteIgnoresRange = true;
    const at = new Date("2026-11-21T01:07:00Z");
    const bar = await provider().intradayBar("BTC-USD", at);
    const used = series.filter((m) => m.t >= dayStart && m.t <= at.getTime());
    expect(used).toHaveLength(14); // 00:00 .. 01:05
    expect(bar).toEqual({
      date: "2026-11-21",
      open: used[0]!.o,
      high: Math.max(...used.map((m) => m.h)),
      low: Math.min(...used.map((m) => m.l)),
      close: used.at(-1)!.c,
      volume: used.reduce((s, m) => s + m.v, 0),
    });
    expect(fake.seen[0]!.path).toBe(`/v2/aggs/ticker/X:BTCUSD/range/5/minute/${dayStart}/${at.getTime()}`);
  });
});
