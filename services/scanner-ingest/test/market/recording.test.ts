import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isTradingDay } from "@board/market-calendar";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addDays } from "../../src/market/days.js";
import { recordingFetch, recordingKey, stripCredentials, type RecordedResponse } from "../../src/market/recording.js";
import { marketDataFetch, ReplayMissError, replayedProvider, replayFetch } from "../../src/market/replay.js";
import { alpacaSymbol, createAlpacaProvider } from "../../src/market/alpaca.js";
import { PolygonProvider } from "../../src/market/vendor.js";
import { collectBars } from "../../src/snapshot.js";
import type { Universe } from "../../src/universe.js";
import { FakeAlpaca, type ABar } from "./alpaca-fake.js";
import { FakePolygon, type DailyAgg } from "./polygon-fake.js";

const POLYGON_KEY = "pk_SECRET-polygon-key-0123456789";
const ALPACA_KEY_ID = "AKSECRETKEYID0123456789";
const ALPACA_SECRET = "sk/SECRET+alpaca=secret-0123456789";
const SECRETS = [POLYGON_KEY, ALPACA_KEY_ID, ALPACA_SECRET];

/**
 * A vendor stand-in on 127.0.0.1: a request without the Polygon key (apiKey=) or the Alpaca
 * headers is refused 401. Some answers echo the key (as careless vendors do), one is binary, one
 * is a 429 with Retry-After.
 */
class FakeVendor {
  server: Server | null = null;
  base = "";
  hits = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.hits++;
      const url = new URL(req.url ?? "/", "http://x");
      const polygon = url.searchParams.get("apiKey") === POLYGON_KEY;
      const alpaca = req.headers["apca-api-key-id"] === ALPACA_KEY_ID && req.headers["apca-api-secret-key"] === ALPACA_SECRET;
      if (!polygon && !alpaca) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: "ERROR", error: "missing key" }));
        return;
      }
      // Headers a recording must not keep: a cookie and an echo of the key.
      const common = { "set-cookie": `session=${POLYGON_KEY}`, "x-echo-key": ALPACA_KEY_ID, "x-request-id": "r-1" };
      if (url.pathname === "/binary") {
        res.writeHead(200, { ...common, "content-type": "application/octet-stream" });
        res.end(Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 10, 13]));
      } else if (url.pathname === "/limited") {
        res.writeHead(429, { ...common, "content-type": "application/json", "retry-after": "7" });
        res.end(JSON.stringify({ status: "ERROR", error: "too many requests" }));
      } else if (url.pathname === "/echo") {
        res.writeHead(200, { ...common, "content-type": "application/json" });
        res.end(JSON.stringify({ status: "OK", request: req.url, next_url: `${this.base}/echo?cursor=2&apiKey=${POLYGON_KEY}` }));
      } else {
        res.writeHead(200, { ...common, "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify({ status: "OK", path: url.pathname, q: url.searchParams.get("q"), price: 123.45, name: "Ünïcødé ✓" }));
      }
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "market-recording-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

/** Every file of the folder, as raw bytes and as text. */
async function folder(): Promise<{ name: string; bytes: Buffer; record: RecordedResponse }[]> {
  const names = (await readdir(dir)).sort();
  return Promise.all(
    names.map(async (name) => {
      const bytes = await readFile(join(dir, name));
      return { name, bytes, record: JSON.parse(bytes.toString("utf8")) as RecordedResponse };
    }),
  );
}

/** Every form a secret could take in a file: plain, URL-encoded, base64 (a body stored as bytes). */
function secretForms(): string[] {
  return SECRETS.flatMap((s) => [s, encodeURIComponent(s), new URLSearchParams({ s }).toString().slice(2), Buffer.from(s).toString("base64")]);
}

async function expectNoSecret(): Promise<void> {
  const files = await folder();
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) {
    for (const form of secretForms()) {
      expect(f.bytes.includes(Buffer.from(form)), `${f.name} holds ${form}`).toBe(false);
      expect(f.name).not.toContain(form);
    }
    // The distinctive tails of the secrets too, in case something kept a part.
    expect(f.bytes.toString("utf8")).not.toMatch(/SECRET/);
    if (f.record.encoding === "base64") expect(Buffer.from(f.record.body, "base64").toString("latin1")).not.toMatch(/SECRET/);
  }
}

const alpacaHeaders = { "APCA-API-KEY-ID": ALPACA_KEY_ID, "APCA-API-SECRET-KEY": ALPACA_SECRET, accept: "application/json" };

describe("recording vendor responses", () => {
  let vendor: FakeVendor;
  beforeEach(async () => {
    vendor = await new FakeVendor().start();
  });
  afterEach(async () => {
    await vendor.stop();
  });

  it("records Polygon- and Alpaca-style requests without any secret, and replays them byte for byte with the vendor gone", async () => {
    const rec = recordingFetch(fetch, dir, { secrets: SECRETS });
    const requests: [string, RequestInit | undefined][] = [
      [`${vendor.base}/v2/aggs/ticker/AAPL/range/1/day/2026-01-01/2026-02-01?adjusted=true&apiKey=${POLYGON_KEY}`, undefined],
      [`${vendor.base}/v2/aggs/ticker/X:BTCUSD/range/1/day/2026-01-01/2026-02-01?q=a%20b&apiKey=${encodeURIComponent(POLYGON_KEY)}`, undefined],
      [`${vendor.base}/v2/stocks/bars?symbols=AAPL,MSFT&timeframe=1Day&feed=iex&page_token=abc`, { headers: alpacaHeaders }],
      [`${vendor.base}/v2/stocks/bars?symbols=AAPL,MSFT&timeframe=1Day&feed=iex&page_token=def`, { headers: new Headers(alpacaHeaders) }],
      [`${vendor.base}/binary?apiKey=${POLYGON_KEY}`, undefined],
      [`${vendor.base}/limited?apiKey=${POLYGON_KEY}`, undefined],
      [`${vendor.base}/echo?apiKey=${POLYGON_KEY}`, undefined],
    ];
    const live: { status: number; body: Buffer; type: string | null; retryAfter: string | null }[] = [];
    for (const [url, init] of requests) {
      const res = await rec(url, init);
      live.push({ status: res.status, body: Buffer.from(await res.arrayBuffer()), type: res.headers.get("content-type"), retryAfter: res.headers.get("retry-after") });
    }
    // The caller got the vendor's answers (not the redacted ones).
    expect(live.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 200]);
    expect(live[6]!.body.toString()).toContain(POLYGON_KEY);
    expect(vendor.hits).toBe(requests.length);

    await expectNoSecret();
    const files = await folder();
    expect(files).toHaveLength(requests.length);
    const urls = files.map((f) => f.record.url).sort();
    expect(urls).toContain(`${vendor.base}/v2/aggs/ticker/AAPL/range/1/day/2026-01-01/2026-02-01?adjusted=true`);
    expect(urls).toContain(`${vendor.base}/binary`);
    // Pagination tokens are not credentials: two pages are two files.
    expect(urls.filter((u) => u.includes("/v2/stocks/bars"))).toHaveLength(2);
    for (const f of files) {
      // Only the headers a client acts on; never a request header, a cookie or an echo.
      expect(Object.keys(f.record.headers).every((h) => h === "content-type" || h === "retry-after")).toBe(true);
      expect(f.bytes.toString()).not.toMatch(/cookie|x-echo-key|x-request-id|apca-api/i);
    }
    const limited = files.find((f) => f.record.url.endsWith("/limited"))!.record;
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBe("7");
    expect(files.find((f) => f.record.url.endsWith("/binary"))!.record.encoding).toBe("base64");
    const echo = files.find((f) => f.record.url.endsWith("/echo"))!.record;
    expect(echo.redacted).toBe(true);
    expect(echo.body).toContain("[redacted]");

    // The vendor is gone: every answer comes from the folder.
    await vendor.stop();
    const replay = replayFetch(dir);
    for (const [i, [url, init]] of requests.entries()) {
      const res = await replay(url, init);
      expect(res.status).toBe(live[i]!.status);
      expect(res.headers.get("content-type")).toBe(live[i]!.type);
      expect(res.headers.get("retry-after")).toBe(live[i]!.retryAfter);
      const body = Buffer.from(await res.arrayBuffer());
      if (i === 6) {
        // The body that echoed the key is replayed without it.
        expect(body.toString()).not.toContain(POLYGON_KEY);
        expect(body.toString()).toContain("[redacted]");
      } else {
        expect(body.equals(live[i]!.body), `body ${i}`).toBe(true);
      }
    }
    // The key is matched without the credentials: another key, or none, finds the same answer.
    const other = await replay(`${vendor.base}/binary?apiKey=another-key`);
    expect(Buffer.from(await other.arrayBuffer()).equals(live[4]!.body)).toBe(true);
    const reordered = await replay(`${vendor.base}/v2/stocks/bars?page_token=abc&feed=iex&timeframe=1Day&symbols=AAPL,MSFT`);
    expect(Buffer.from(await reordered.arrayBuffer()).equals(live[2]!.body)).toBe(true);
  });

  it("fails a request that was not recorded with an error naming its URL without the key", async () => {
    const rec = recordingFetch(fetch, dir, { secrets: SECRETS });
    await (await rec(`${vendor.base}/a?apiKey=${POLYGON_KEY}`)).text();
    await vendor.stop();
    const replay = replayFetch(dir);
    expect(await (await replay(`${vendor.base}/a?apiKey=${POLYGON_KEY}`)).text()).toContain('"path":"/a"');
    const err = await replay(`${vendor.base}/b?day=2026-01-02&apiKey=${POLYGON_KEY}`).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(ReplayMissError);
    expect(err!.message).toContain(`no recorded response for GET ${vendor.base}/b?day=2026-01-02`);
    expect(err!.message).not.toContain(POLYGON_KEY);
    // Another method is another request.
    await expect(replay(`${vendor.base}/a`, { method: "HEAD" })).rejects.toThrow(`no recorded response for HEAD ${vendor.base}/a`);
    // An empty folder, or none at all, fails the same way.
    await expect(replayFetch(join(dir, "nothing-here"))(`${vendor.base}/a`)).rejects.toThrow(ReplayMissError);
  });

  it("records nothing when the request fails, and the failure is the caller's", async () => {
    const into = join(dir, "recordings");
    const rec = recordingFetch(fetch, into);
    await vendor.stop();
    await expect(rec(`${vendor.base}/a?apiKey=${POLYGON_KEY}`)).rejects.toThrow();
    await expect(readdir(into)).rejects.toThrow(/ENOENT/); // never created
  });

  it("a request asked again replaces its recording (a retried 429 is replaced by the answer that followed)", async () => {
    let n = 0;
    const scripted: typeof fetch = async () => {
      n++;
      return n === 1
        ? new Response("slow down", { status: 429, headers: { "retry-after": "1" } })
        : new Response('{"status":"OK"}', { status: 200, headers: { "content-type": "application/json" } });
    };
    const rec = recordingFetch(scripted, dir);
    expect((await rec(`https://api.example.test/x?apiKey=${POLYGON_KEY}`)).status).toBe(429);
    expect((await rec(`https://api.example.test/x?apiKey=${POLYGON_KEY}`)).status).toBe(200);
    expect(await readdir(dir)).toHaveLength(1);
    const res = await replayFetch(dir)("https://api.example.test/x");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"status":"OK"}');
  });
});

describe("credentials", () => {
  it("strips key parameters and user info, keeping everything else", () => {
    const { url, removed } = stripCredentials(
      "https://user:pw-secret@api.example.test/v2/x?b=2&apiKey=K1&API_KEY=K2&token=K3&access_token=K4&page_token=P&a=1#frag",
    );
    expect(url.href).toBe("https://api.example.test/v2/x?b=2&page_token=P&a=1");
    expect(removed.sort()).toEqual(["K1", "K2", "K3", "K4", "pw-secret", "user"].sort());
    expect(stripCredentials("https://h.test/x?custom=S", { secretParams: ["Custom"] }).url.href).toBe("https://h.test/x");
  });

  it("keys a request by method and stripped URL, whatever the parameter order", () => {
    const a = recordingKey("get", stripCredentials("https://h.test/x?b=2&a=1&apiKey=K").url);
    const b = recordingKey("GET", stripCredentials("https://h.test/x?apiKey=Z&a=1&b=2").url);
    expect(a).toBe(b);
    expect(a).toBe("GET https://h.test/x?a=1&b=2");
  });

  it("reads record and replay from the env, and refuses both at once", () => {
    expect(marketDataFetch({}).mode).toBe("live");
    expect(marketDataFetch({ MARKET_DATA_RECORD_DIR: " " }).mode).toBe("live");
    expect(marketDataFetch({ MARKET_DATA_RECORD_DIR: dir })).toMatchObject({ mode: "record", dir });
    expect(marketDataFetch({ MARKET_DATA_REPLAY_DIR: dir })).toMatchObject({ mode: "replay", dir });
    expect(() => marketDataFetch({ MARKET_DATA_RECORD_DIR: dir, MARKET_DATA_REPLAY_DIR: dir })).toThrow(/both set/);
  });
});

describe("a Polygon scan recorded and replayed", () => {
  const KEY = "pk_SECRET-scan-key-9876543210";
  const HOUR = 3_600_000;
  const LATER = new Date("2026-12-15T00:00:00Z");
  const ENTRIES = [
    { sym: "AAPL", kind: "stock" as const },
    { sym: "SPY", kind: "etf" as const },
    { sym: "BTC-USD", kind: "crypto" as const },
  ];
  let fake: FakePolygon;

  function series(from: string, to: string, crypto: boolean): DailyAgg[] {
    const out: DailyAgg[] = [];
    let i = 0;
    for (let day = from; day <= to; day = addDays(day, 1)) {
      if (!crypto && !isTradingDay(day)) continue;
      const c = 100 + i++;
      const t = Date.parse(`${day}T00:00:00Z`) + (crypto ? 0 : (day < "2026-11-01" ? 4 : 5) * HOUR);
      out.push({ o: c - 0.5, h: c + 1, l: c - 1, c, v: 1_000_000 + i, vw: c, t, n: 1000, day });
    }
    return out;
  }

  beforeEach(async () => {
    fake = await new FakePolygon().start();
    fake.daily.set("AAPL", series("2026-08-03", "2026-11-30", false));
    fake.daily.set("SPY", series("2026-08-03", "2026-11-30", false));
    fake.daily.set("X:BTCUSD", series("2026-10-01", "2026-11-30", true));
  });
  afterEach(async () => {
    await fake.stop();
  });

  const AT = new Date("2026-11-20T22:00:00Z");
  const provider = (f: typeof fetch) =>
    new PolygonProvider(ENTRIES, { apiKey: KEY, baseUrl: fake.base, requestsPerMinute: 60_000, backoffBaseMs: 1, maxRetries: 0, now: () => LATER, fetch: f });
  /**
   * A scan's per-name reads (what a scan reads when whole-market requests do not cover a name):
   * each name's daily bars through the scan's day, and crypto's partial bar at the scan's instant.
   */
  const scan = async (p: PolygonProvider) => {
    const out = new Map<string, unknown>();
    for (const e of ENTRIES) {
      out.set(e.sym, await p.dailyBars(e.sym, e.kind === "crypto" ? "2026-11-19" : "2026-11-20", 40));
      if (e.kind === "crypto") out.set(`${e.sym} at ${AT.toISOString()}`, await p.intradayBar(e.sym, AT));
    }
    return out;
  };

  it("gives the same bars from the folder, with the vendor stopped, and keeps the key out of it", async () => {
    const recorded = await scan(provider(recordingFetch(fetch, dir, { secrets: [KEY] })));
    expect(fake.seen.length).toBeGreaterThan(0);
    expect(fake.seen.every((s) => s.query.get("apiKey") === KEY)).toBe(true);
    for (const e of ENTRIES) expect((recorded.get(e.sym) as unknown[]).length).toBe(40);
    expect((await readdir(dir)).length).toBeGreaterThanOrEqual(ENTRIES.length);
    for (const name of await readdir(dir)) {
      const text = await readFile(join(dir, name), "utf8");
      expect(text).not.toContain(KEY);
      expect(name).not.toContain(KEY);
    }

    await fake.stop();
    const replaying = provider(replayFetch(dir));
    expect(await scan(replaying)).toEqual(recorded);
    const labelled = replayedProvider(replaying);
    expect(labelled.info.delay).toBe("recorded");
    expect(labelled.info.name).toBe("vendor");
    expect(await labelled.dailyBars("AAPL", "2026-11-20", 40)).toEqual(recorded.get("AAPL"));
  });

  it("a whole intraday scan (grouped and snapshot requests, then every name's reads) replayed gives the same bars, labelled recorded", async () => {
    const MONDAY_10AM = new Date("2026-11-23T15:00:00Z");
    for (const [ticker, c] of [["AAPL", 150], ["SPY", 600], ["X:BTCUSD", 90_000]] as const) {
      fake.live.set(ticker, { day: { o: c - 1, h: c + 2, l: c - 2, c, v: 12_345, vw: c }, lastTrade: { p: c, s: 100, t: (MONDAY_10AM.getTime() - 1_000) * 1e6 } });
    }
    const universe = { entries: ENTRIES.map((e) => ({ ...e, name: e.sym, books: [], sector: "Technology" })), sectorEtfs: {} } as unknown as Universe;
    const starter = (f: typeof fetch) =>
      new PolygonProvider(ENTRIES, { apiKey: KEY, baseUrl: fake.base, plan: "starter", requestsPerMinute: 60_000, backoffBaseMs: 1, maxRetries: 0, now: () => MONDAY_10AM, fetch: f });
    const wholeScan = (p: PolygonProvider | ReturnType<typeof replayedProvider>) =>
      collectBars({ universe, provider: p, at: MONDAY_10AM, intraday: true, asofDaily: "2026-11-23", historyBars: 40 });

    const recorded = await wholeScan(starter(recordingFetch(fetch, dir, { secrets: [KEY] })));
    expect(fake.seen.some((s) => s.path.startsWith("/v2/aggs/grouped/"))).toBe(true);
    expect(fake.seen.some((s) => s.path.startsWith("/v2/snapshot/"))).toBe(true);
    expect([...recorded.values()].every((b) => b.partial && b.bars.length === 40)).toBe(true);
    for (const name of await readdir(dir)) expect((await readFile(join(dir, name), "utf8")).includes(KEY)).toBe(false);

    await fake.stop();
    const replaying = replayedProvider(starter(replayFetch(dir)));
    expect(await wholeScan(replaying)).toEqual(recorded);
    expect(replaying.info).toMatchObject({ name: "vendor", vendor: "polygon", feed: "starter", delay: "recorded", simulated: false });
    expect(replaying.intraday).toBe(true);
  });

  it("a scan asking for what was not recorded fails naming the request, without the key", async () => {
    await scan(provider(recordingFetch(fetch, dir, { secrets: [KEY] })));
    await fake.stop();
    const err = await provider(replayFetch(dir)).dailyBars("AAPL", "2026-11-27", 40).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toContain("no recorded response for GET");
    expect(err!.message).toContain("/v2/aggs/ticker/AAPL/range/1/day/");
    expect(err!.message).not.toContain(KEY);
  });
});

describe("an Alpaca scan recorded and replayed", () => {
  const KEY_ID = "PKSECRETSCANKEYID0123";
  const SECRET = "SECRET/scan+secret=abcdef0123456789";
  const LATER = new Date("2026-12-15T00:00:00Z");
  const ENTRIES = [
    { sym: "AAPL", kind: "stock" as const },
    { sym: "BRK.B", kind: "stock" as const },
    { sym: "SPY", kind: "etf" as const },
    { sym: "BTC-USD", kind: "crypto" as const },
  ];
  const PLAN = { through: "2026-11-20", count: 60, at: new Date("2026-11-21T12:00:00Z"), intraday: false };
  let fake: FakeAlpaca;

  function series(seed: number, crypto: boolean): ABar[] {
    const out: ABar[] = [];
    let i = 0;
    for (let day = "2026-06-01"; day <= "2026-11-30"; day = addDays(day, 1)) {
      if (!crypto && !isTradingDay(day)) continue;
      const c = 50 + seed + i++ * 0.01;
      // Equity daily bars at midnight New York (EDT until 2026-11-01), crypto at 00:00Z.
      const t = crypto ? `${day}T00:00:00Z` : `${day}T0${day < "2026-11-01" ? 4 : 5}:00:00Z`;
      out.push({ t, o: c - 0.5, h: c + 1, l: c - 1, c, v: 1_000_000 + i, n: 1000, vw: c });
    }
    return out;
  }

  beforeEach(async () => {
    fake = await new FakeAlpaca().start();
    fake.keyId = KEY_ID;
    fake.secretKey = SECRET;
    ENTRIES.forEach((e, i) => fake.daily.set(alpacaSymbol(e), series(i, e.kind === "crypto")));
  });
  afterEach(async () => {
    await fake.stop();
  });

  const provider = (f: typeof fetch) =>
    createAlpacaProvider(ENTRIES, { keyId: KEY_ID, secretKey: SECRET, baseUrl: fake.base, requestsPerMinute: 60_000, backoffBaseMs: 1, maxRetries: 0, now: () => LATER, fetch: f });
  /** A scan: the whole-market requests, then every name's daily bars. */
  const scan = async (p: ReturnType<typeof provider>) => {
    await p.prepareScan(ENTRIES, PLAN);
    const out = new Map<string, unknown>();
    for (const e of ENTRIES) out.set(e.sym, await p.dailyBars(e.sym, PLAN.through, PLAN.count));
    return out;
  };

  it("gives the same bars from the folder with the vendor stopped, and no key id or secret (sent in headers) reaches it", async () => {
    const recorded = await scan(provider(recordingFetch(fetch, dir, { secrets: [KEY_ID, SECRET] })));
    for (const e of ENTRIES) expect((recorded.get(e.sym) as unknown[]).length).toBe(PLAN.count);
    // Whole-market requests, the stock ones with the key in headers as Alpaca wants it.
    expect(fake.count("/v2/stocks/bars")).toBeGreaterThan(0);
    expect(fake.seen.some((s) => s.headers["apca-api-key-id"] === KEY_ID)).toBe(true);
    const names = await readdir(dir);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const bytes = await readFile(join(dir, name));
      for (const form of [KEY_ID, SECRET, encodeURIComponent(SECRET), Buffer.from(SECRET).toString("base64")]) {
        expect(bytes.includes(Buffer.from(form)), `${name} holds ${form}`).toBe(false);
        expect(name).not.toContain(form);
      }
      expect(bytes.toString().toLowerCase()).not.toContain("apca-api");
    }

    await fake.stop();
    expect(await scan(provider(replayFetch(dir)))).toEqual(recorded);
  });
});
