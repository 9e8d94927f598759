// The `vendor` market data provider: Polygon.io's REST API.
//
// A scan asks the whole market at once (prepareScan), so its cost does not grow with the universe:
//
//   grouped:  GET {base}/v2/aggs/grouped/locale/us/market/stocks/{date}?adjusted=true&apiKey=KEY
//             every US stock's and ETF's bar of one session: {"status","results":[{"T" (ticker),"o","h","l","c","v","t",...}]}
//   snapshot: GET {base}/v2/snapshot/locale/us/markets/stocks/tickers?tickers=A,B,...&apiKey=KEY
//             (crypto: /v2/snapshot/locale/global/markets/crypto/tickers?tickers=X:BTCUSD,...)
//             {"status","tickers":[{"ticker","day":{"o","h","l","c","v"},"lastTrade":{"p",...},...}]}
//
// Equities' history is one grouped request per session (the first start: about 345), kept for good
// once settled, so a later scan asks only for sessions it has not seen; the day in progress is one
// snapshot request per 400 tickers. What the whole-market answers do not cover (crypto history, a
// name absent from the grouped bars, a catch-up scan's past instant) is read per name:
//
//   daily:    GET {base}/v2/aggs/ticker/{T}/range/1/day/{from}/{to}?adjusted=true&sort=asc&limit=50000&apiKey=KEY
//   intraday: GET {base}/v2/aggs/ticker/{T}/range/5/minute/{fromMs}/{toMs}?adjusted=true&sort=asc&limit=50000&apiKey=KEY
//
// Tickers: equities and ETFs as the universe spells them (BRK.B stays BRK.B); crypto BTC-USD is
// X:BTCUSD, ETH-USD X:ETHUSD. Response: {"status":"OK"|"DELAYED","results":[{"o","h","l","c","v",
// "t" (bar start, ms epoch),...}],"next_url"?}; next_url pages are followed (with the key appended).
//
// Daily bars are dated by the New York date of `t` for equities (Polygon stamps them at midnight New
// York time) and by the UTC date for crypto. They are cached per symbol for the life of the process,
// but only for days that can no longer change (equities: 4.5 hours after the session's close, when
// extended hours are over; crypto: 30 minutes after the UTC day ends); a younger tail is fetched
// again each time it is asked for.
//
// The intraday partial bar aggregates the day's 5-minute bars with a start at or before `at`:
// equities from the regular session's open (pre-market bars are left out; null while the market is
// shut or before the first bar), crypto from 00:00 UTC.
//
// Every request waits for the client-side token bucket (VENDOR_REQUESTS_PER_MINUTE, requests
// evenly spaced), has a time limit (VENDOR_TIMEOUT_MS), and is retried with exponential backoff and
// jitter on network errors, timeouts, 5xx and 429 (429 waits for Retry-After when given). Other
// 4xx fail at once. The API key never appears in an error or log line: URLs are redacted.

import { setTimeout as sleep } from "node:timers/promises";
import { addTradingDays, isTradingDay, nyDate, sessionAt, sessionOn } from "@board/market-calendar";
import type { ProviderInfo } from "@board/proto";
import { z } from "zod";
import type { UniverseEntry } from "../universe.js";
import { addDays, toEpochDay, utcDateOf } from "./days.js";
import type { Bar, MarketDataProvider, ScanPlan } from "./provider.js";
import { TokenBucket } from "./rate-limit.js";

/** What the provider needs to know of a name. */
export type VendorEntry = Pick<UniverseEntry, "sym" | "kind">;

/** The slice of a pino logger the provider uses. */
export type VendorLog = { warn(obj: object, msg: string): void };

export type VendorOptions = {
  apiKey: string;
  /** Default https://api.polygon.io. */
  baseUrl?: string;
  /** Client-side rate limit; default 5 (Polygon's free tier). */
  requestsPerMinute?: number;
  /** Requests the bucket may save up; default 1 (evenly spaced, never a burst). */
  burst?: number;
  /** Time limit of one request, headers and body; default 10 000. */
  timeoutMs?: number;
  /** Retries after the first attempt; default 4. */
  maxRetries?: number;
  /** First backoff step; default 1000 ms, doubling per retry, plus jitter. */
  backoffBaseMs?: number;
  /** Longest backoff step; default 30 000 ms. */
  backoffMaxMs?: number;
  /** Longest Retry-After honoured; default 120 000 ms. */
  maxRetryAfterMs?: number;
  log?: VendorLog;
  /** The wall clock (decides which days are settled enough to cache); default the system clock. */
  now?: () => Date;
  /** The Polygon plan of the key; default "basic" (the free tier: end-of-day, no intraday board). */
  plan?: PolygonPlan;
  /** The HTTP client (a recording or replaying one in tests); default globalThis.fetch. */
  fetch?: typeof fetch;
};

/** What prepareScan fetched for one scan: equities' daily bars over [from, through], and partial bars at `atMs`. */
type Prepared = { from: string; through: string; daily: Map<string, Bar[]>; atMs: number; intraday: Map<string, Bar> };

const DEFAULTS = {
  baseUrl: "https://api.polygon.io",
  requestsPerMinute: 5,
  timeoutMs: 10_000,
  maxRetries: 4,
  backoffBaseMs: 1_000,
  backoffMaxMs: 30_000,
  maxRetryAfterMs: 120_000,
};

/** Bars fetched beyond the asked count, so a day missing at the vendor still leaves `count` bars. */
const SLACK_BARS = 5;
/** An equity daily bar is final this long after the regular close (extended hours end at 20:00). */
const EQUITY_SETTLE_MS = 4.5 * 3_600_000;
/** A crypto daily bar is final this long after its UTC day ends. */
const CRYPTO_SETTLE_MS = 30 * 60_000;
/** A snapshot is "now": a scan further from the wall clock than this (a catch-up scan) reads per name. */
const SNAPSHOT_NOW_MS = 2 * 60_000;
/** Grouped requests in flight at once: the bucket paces them anyway, and a failure stops the rest early. */
const GROUPED_CONCURRENCY = 8;
/** Tickers per snapshot request, keeping the URL well under common 8 KB limits. */
const SNAPSHOT_CHUNK = 400;
/** A runaway next_url chain is a bug: no symbol needs this many pages. */
const MAX_PAGES = 100;

const AggBar = z.object({ o: z.number(), h: z.number(), l: z.number(), c: z.number(), v: z.number(), t: z.number() });
const AggsResponse = z.object({
  status: z.string(),
  results: z.array(AggBar).optional(),
  next_url: z.string().optional(),
  error: z.string().optional(),
  message: z.string().optional(),
});
type AggBar = z.infer<typeof AggBar>;
/** What every Polygon answer carries: a status, and on failure an error or message. */
type Envelope = { status: string; error?: string | undefined; message?: string | undefined };

/** Grouped daily bars: every ticker's bar of one day, `T` naming the ticker. */
const GroupedResponse = z.object({
  status: z.string(),
  results: z.array(AggBar.extend({ T: z.string() })).optional(),
  error: z.string().optional(),
  message: z.string().optional(),
});
/** Snapshot of many tickers: each one's day so far and its last trade (fields absent before a trade). */
const SnapshotDay = z.object({ o: z.number(), h: z.number(), l: z.number(), c: z.number(), v: z.number() }).partial();
const SnapshotResponse = z.object({
  status: z.string(),
  tickers: z
    .array(z.object({ ticker: z.string(), day: SnapshotDay.optional(), lastTrade: z.object({ p: z.number().optional() }).optional() }))
    .optional(),
  error: z.string().optional(),
  message: z.string().optional(),
});

/**
 * The Polygon stocks plan the key is on: it decides how late prices are (published as the board's
 * `delay`) and whether the snapshot endpoint answers. Basic (free): end-of-day bars only, 5 requests
 * a minute. Starter and Developer: 15-minute delayed, unlimited requests. Advanced: real time.
 */
export const POLYGON_PLANS = ["basic", "starter", "developer", "advanced"] as const;
export type PolygonPlan = (typeof POLYGON_PLANS)[number];
const PLAN_DELAY = { basic: "end_of_day", starter: "delayed_15m", developer: "delayed_15m", advanced: "real_time" } as const;

/** The Polygon ticker of a universe symbol. */
export function polygonTicker(entry: VendorEntry): string {
  if (entry.kind === "crypto") return `X:${entry.sym.replace("-", "")}`;
  return entry.sym;
}

/** Thrown for answers a retry cannot change (bad key, bad request, malformed body). */
export class VendorError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "VendorError";
  }
}

class Retryable extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** Retry-After as milliseconds: delta seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

type Cached = {
  /** Days from..to are known and settled: bars holds every bar the vendor has in that range. */
  from: string;
  to: string;
  bars: Bar[];
};

export class PolygonProvider implements MarketDataProvider {
  readonly info: ProviderInfo;
  readonly intraday: boolean;
  readonly #key: string;
  readonly #base: URL;
  readonly #opts: typeof DEFAULTS;
  readonly #log: VendorLog | undefined;
  readonly #now: () => Date;
  readonly #entries = new Map<string, VendorEntry>();
  readonly #bucket: TokenBucket;
  readonly #closed = new AbortController();
  readonly #cache = new Map<string, Cached>();
  readonly #fetch: typeof fetch;
  /** Settled days' grouped bars, universe names only: date -> sym -> bar. Never refetched. */
  readonly #groupedDays = new Map<string, Map<string, Bar>>();
  /** Partial bars at instants long past (the crypto quote at the US close), which can no longer change. */
  readonly #pastBars = new Map<string, Bar | null>();
  #prepared: Prepared | null = null;
  /** Per-symbol queue: one daily fetch of a symbol at a time, so concurrent reads share the cache. */
  readonly #locks = new Map<string, Promise<unknown>>();
  /** HTTP requests sent (attempts included), for tests and metrics. */
  requests = 0;

  constructor(entries: readonly VendorEntry[], opts: VendorOptions) {
    if (opts.apiKey.trim() === "") throw new VendorError("vendor: invalid or missing API key (VENDOR_API_KEY is empty)");
    this.#key = opts.apiKey.trim();
    this.#opts = {
      baseUrl: opts.baseUrl ?? DEFAULTS.baseUrl,
      requestsPerMinute: opts.requestsPerMinute ?? DEFAULTS.requestsPerMinute,
      timeoutMs: opts.timeoutMs ?? DEFAULTS.timeoutMs,
      maxRetries: opts.maxRetries ?? DEFAULTS.maxRetries,
      backoffBaseMs: opts.backoffBaseMs ?? DEFAULTS.backoffBaseMs,
      backoffMaxMs: opts.backoffMaxMs ?? DEFAULTS.backoffMaxMs,
      maxRetryAfterMs: opts.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs,
    };
    this.#base = new URL(this.#opts.baseUrl.endsWith("/") ? this.#opts.baseUrl : `${this.#opts.baseUrl}/`);
    this.#log = opts.log;
    this.#now = opts.now ?? (() => new Date());
    this.#fetch = opts.fetch ?? globalThis.fetch;
    const plan = opts.plan ?? "basic";
    // The free plan has end-of-day data only (and no snapshot endpoint): no intraday board.
    this.intraday = plan !== "basic";
    this.#bucket = new TokenBucket(this.#opts.requestsPerMinute, {
      ...(opts.burst !== undefined ? { burst: opts.burst } : {}),
      signal: this.#closed.signal,
    });
    for (const e of entries) this.#entries.set(e.sym, e);
    this.info = {
      name: "vendor",
      // Published with every board: nothing about the deployment (host, key, limits) in it.
      detail:
        plan === "basic"
          ? "Polygon.io grouped daily bars (adjusted, end of day)"
          : "Polygon.io grouped daily bars (adjusted) and snapshots for the day in progress",
      simulated: false,
      vendor: "polygon",
      feed: plan,
      delay: PLAN_DELAY[plan],
    };
  }

  async dailyBars(sym: string, through: string, count: number): Promise<Bar[]> {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`vendor: count must be a non-negative integer, got ${count}`);
    toEpochDay(through); // validates the date
    const entry = this.#entryOf(sym);
    if (count === 0) return [];
    const from = startDate(entry, through, count + SLACK_BARS);
    const ready = this.#prepared?.daily.get(sym);
    if (ready && this.#prepared!.from <= from && through <= this.#prepared!.through) {
      const upTo = ready.filter((b) => b.date >= from && b.date <= through);
      return upTo.slice(Math.max(0, upTo.length - count)).map((b) => ({ ...b }));
    }
    const bars = await this.#withLock(sym, () => this.#daily(entry, from, through));
    const upTo = bars.filter((b) => b.date <= through);
    return upTo.slice(Math.max(0, upTo.length - count)).map((b) => ({ ...b }));
  }

  async intradayBar(sym: string, at: Date): Promise<Bar | null> {
    const entry = this.#entryOf(sym);
    const atMs = at.getTime();
    if (!Number.isFinite(atMs)) throw new RangeError("vendor: intradayBar needs a valid Date");
    let date: string;
    let startMs: number;
    if (entry.kind === "crypto") {
      date = utcDateOf(at);
      startMs = Date.parse(`${date}T00:00:00Z`);
    } else {
      const session = sessionAt(at);
      if (session === null) return null;
      date = session.date;
      startMs = session.open.getTime();
    }
    if (this.#prepared?.atMs === atMs) {
      const ready = this.#prepared.intraday.get(sym);
      if (ready?.date === date) return { ...ready };
    }
    // A bar at an instant long past cannot change: the crypto quote at the US close is asked every scan.
    const pastKey = `${sym}@${atMs}`;
    if (this.#pastBars.has(pastKey)) return this.#pastBars.get(pastKey) ?? null;
    const bar = await this.#minuteBar(entry, date, startMs, atMs);
    if (atMs < this.#now().getTime() - 30 * 60_000) {
      if (this.#pastBars.size > 10_000) this.#pastBars.clear();
      this.#pastBars.set(pastKey, bar);
    }
    return bar ? { ...bar } : null;
  }

  /**
   * Fetches the scan's whole-market data: the equities' daily bars one grouped request per session
   * (settled sessions kept for good, so after the first start only the new session is asked for),
   * and the partial bars of equities and crypto from snapshot requests of many tickers. A name absent
   * from the last session's grouped bars (newly listed, renamed, delisted) or from the snapshot is
   * left to the per-name reads. Crypto daily bars stay per name: one range request per asset beats
   * one grouped request per calendar day. A grouped or snapshot request that fails after its
   * retries rejects: the vendor is not answering, and per-name reads would only multiply the failure.
   */
  async prepareScan(entries: readonly { sym: string; kind: string }[], scan: ScanPlan): Promise<void> {
    this.#prepared = null;
    const known = entries.flatMap((e) => {
      const entry = this.#entries.get(e.sym);
      return entry ? [entry] : [];
    });
    const equities = known.filter((e) => e.kind !== "crypto");
    const crypto = known.filter((e) => e.kind === "crypto");
    const prepared: Prepared = { from: scan.through, through: scan.through, daily: new Map(), atMs: scan.at.getTime(), intraday: new Map() };

    if (equities.length > 0 && scan.count > 0) {
      const probe: VendorEntry = { sym: "", kind: "stock" };
      const from = startDate(probe, scan.through, scan.count + SLACK_BARS);
      const sessions: string[] = [];
      for (let d = from; d <= scan.through; d = addDays(d, 1)) if (isTradingDay(d)) sessions.push(d);
      const settled = settledThrough(probe, this.#now());
      const wanted = new Map(equities.map((e) => [polygonTicker(e), e.sym]));
      const byDay = await pool(sessions, GROUPED_CONCURRENCY, (day) => this.#groupedDay(day, day <= settled, wanted));
      const last = byDay.at(-1);
      prepared.from = from;
      for (const e of equities) {
        // Present on the last session: the name trades, and its gaps are the vendor's (as per name).
        if (last === undefined || !last.has(e.sym)) continue;
        prepared.daily.set(
          e.sym,
          byDay.flatMap((m) => {
            const bar = m.get(e.sym);
            return bar ? [bar] : [];
          }),
        );
      }
    }

    if (Math.abs(this.#now().getTime() - prepared.atMs) <= SNAPSHOT_NOW_MS) {
      const session = sessionAt(scan.at);
      if (scan.intraday && session !== null && this.intraday && equities.length > 0) {
        await this.#snapshot("v2/snapshot/locale/us/markets/stocks/tickers", equities, session.date, prepared.intraday);
      }
      if (crypto.length > 0 && this.intraday) {
        await this.#snapshot("v2/snapshot/locale/global/markets/crypto/tickers", crypto, utcDateOf(scan.at), prepared.intraday);
      }
    }
    this.#prepared = prepared;
  }

  /** One session's grouped bars of the universe's equities, from the cache when settled and seen. */
  async #groupedDay(day: string, settled: boolean, wanted: ReadonlyMap<string, string>): Promise<Map<string, Bar>> {
    const cached = this.#groupedDays.get(day);
    if (cached) return cached;
    const url = new URL(`v2/aggs/grouped/locale/us/market/stocks/${day}`, this.#base);
    url.searchParams.set("adjusted", "true");
    url.searchParams.set("apiKey", this.#key);
    const body = await this.#getJson(url, `grouped ${day}`, GroupedResponse);
    const out = new Map<string, Bar>();
    for (const r of body.results ?? []) {
      const sym = wanted.get(r.T);
      if (sym === undefined) continue;
      // One bad row is that name's problem, not the market's: it is left to the per-name read.
      if (![r.o, r.h, r.l, r.c].every((p) => Number.isFinite(p) && p > 0) || !(r.v >= 0) || r.h < r.l) continue;
      out.set(sym, { date: day, open: r.o, high: r.h, low: r.l, close: r.c, volume: r.v });
    }
    // A session without a single universe name is not published yet (or lost): asking each name would
    // cost 565 requests for the same answer, so the scan waits for the next slot instead.
    if (out.size === 0) throw new VendorError(`vendor: grouped ${day}: no bars for the universe's names (not published yet?)`);
    if (settled) this.#groupedDays.set(day, out);
    return out;
  }

  /**
   * Partial bars of `entries` dated `date` from snapshot requests (Polygon's day so far, which may
   * open with a pre-market trade where the per-name path starts at the regular open), into `into`; names without a trade today are left out. */
  async #snapshot(path: string, entries: readonly VendorEntry[], date: string, into: Map<string, Bar>): Promise<void> {
    const symOf = new Map(entries.map((e) => [polygonTicker(e), e.sym]));
    const tickers = [...symOf.keys()];
    for (let i = 0; i < tickers.length; i += SNAPSHOT_CHUNK) {
      const url = new URL(path, this.#base);
      url.searchParams.set("tickers", tickers.slice(i, i + SNAPSHOT_CHUNK).join(","));
      url.searchParams.set("apiKey", this.#key);
      const body = await this.#getJson(url, "snapshot", SnapshotResponse);
      for (const t of body.tickers ?? []) {
        const sym = symOf.get(t.ticker);
        const d = t.day;
        if (sym === undefined || d === undefined) continue;
        const { o, h, l, c, v } = d;
        if (o === undefined || h === undefined || l === undefined || c === undefined || v === undefined) continue;
        if (!(o > 0 && h > 0 && l > 0 && v > 0)) continue; // no trade yet today
        const last = t.lastTrade?.p !== undefined && t.lastTrade.p > 0 ? t.lastTrade.p : c;
        if (!(last > 0)) continue;
        into.set(sym, { date, open: o, high: Math.max(h, last), low: Math.min(l, last), close: last, volume: v });
      }
    }
  }

  /** The day's 5-minute bars from `startMs` up to `atMs`, aggregated; null before the first. */
  async #minuteBar(entry: VendorEntry, date: string, startMs: number, atMs: number): Promise<Bar | null> {
    const minutes = await this.#aggs(entry, `range/5/minute/${startMs}/${atMs}`);
    let bar: Bar | null = null;
    for (const m of minutes) {
      if (m.t < startMs || m.t > atMs) continue;
      if (bar === null) bar = { date, open: m.o, high: m.h, low: m.l, close: m.c, volume: m.v };
      else {
        bar.high = Math.max(bar.high, m.h);
        bar.low = Math.min(bar.low, m.l);
        bar.close = m.c;
        bar.volume += m.v;
      }
    }
    return bar;
  }

  /** Rejects every pending and later request (for shutdown: a queue at 5 a minute can be long). */
  close(): void {
    this.#closed.abort(this.#closedError());
  }

  #closedError(): Error {
    return new VendorError("vendor: provider closed");
  }

  /** Forgets the cached daily bars. */
  clearCache(): void {
    this.#cache.clear();
  }

  #entryOf(sym: string): VendorEntry {
    const entry = this.#entries.get(sym);
    if (entry === undefined) throw new RangeError(`vendor: unknown symbol "${sym}" (not in the universe)`);
    if (!/^[A-Z0-9][A-Z0-9.-]*$/.test(sym)) throw new RangeError(`vendor: symbol "${sym}" cannot be sent to Polygon`);
    return entry;
  }

  #withLock<T>(sym: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#locks.get(sym) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.#locks.set(sym, tail);
    void tail.then(() => {
      if (this.#locks.get(sym) === tail) this.#locks.delete(sym);
    });
    return run;
  }

  /**
   * Every bar of [from, through]: from the cache where it covers the range, the rest (a missing
   * head, a missing tail, or all of it) from the vendor. Settled days are then cached.
   */
  async #daily(entry: VendorEntry, from: string, through: string): Promise<Bar[]> {
    const c = this.#cache.get(entry.sym);
    // The cache is used (and grown) when its range overlaps or adjoins the one asked for.
    const touches = c !== undefined && c.from <= addDays(through, 1) && addDays(c.to, 1) >= from;
    const pieces: [string, string][] = [];
    const byDate = new Map<string, Bar>();
    if (c && touches) {
      if (from < c.from) pieces.push([from, addDays(c.from, -1)]);
      if (through > c.to) pieces.push([addDays(c.to, 1), through]);
      for (const b of c.bars) byDate.set(b.date, b);
    } else {
      pieces.push([from, through]);
    }
    for (const [a, b] of pieces) {
      for (const agg of await this.#aggs(entry, `range/1/day/${a}/${b}`)) {
        const bar = dailyBarOf(entry, agg);
        if (bar.date >= a && bar.date <= b) byDate.set(bar.date, bar); // a repeated date keeps the last
      }
    }
    const bars = [...byDate.values()].sort((x, y) => (x.date < y.date ? -1 : 1));

    if (pieces.length > 0) {
      const coveredFrom = c && touches && c.from < from ? c.from : from;
      const coveredTo = c && touches && c.to > through ? c.to : through;
      const settled = settledThrough(entry, this.#now());
      const keepTo = coveredTo < settled ? coveredTo : settled;
      if (keepTo >= coveredFrom) this.#cache.set(entry.sym, { from: coveredFrom, to: keepTo, bars: bars.filter((b) => b.date <= keepTo) });
    }
    return bars.filter((b) => b.date >= from && b.date <= through);
  }

  /** GET an aggregates range, following next_url; returns every page's results in order. */
  async #aggs(entry: VendorEntry, range: string): Promise<AggBar[]> {
    const ticker = polygonTicker(entry);
    /** How errors name the symbol: the universe's spelling, and Polygon's when it differs. */
    const label = ticker === entry.sym ? ticker : `${entry.sym} (${ticker})`;
    let url: URL | null = new URL(`v2/aggs/ticker/${ticker}/${range}`, this.#base);
    url.searchParams.set("adjusted", "true");
    url.searchParams.set("sort", "asc");
    url.searchParams.set("limit", "50000");
    const out: AggBar[] = [];
    const seen = new Set<string>();
    for (let page = 0; url !== null; page++) {
      if (page >= MAX_PAGES) throw new VendorError(`vendor: ${label}: more than ${MAX_PAGES} pages of results`);
      url.searchParams.set("apiKey", this.#key);
      const body: z.infer<typeof AggsResponse> = await this.#getJson(url, label, AggsResponse);
      for (const bar of body.results ?? []) {
        if (![bar.o, bar.h, bar.l, bar.c].every((p) => Number.isFinite(p) && p > 0) || !(bar.v >= 0) || bar.h < bar.l) {
          throw new VendorError(`vendor: ${label}: implausible bar at ${new Date(bar.t).toISOString()}: ${JSON.stringify(bar)}`);
        }
        out.push(bar);
      }
      url = body.next_url ? this.#nextUrl(body.next_url, label) : null;
      if (url !== null) {
        const key = url.toString();
        if (seen.has(key)) throw new VendorError(`vendor: ${label}: next_url repeats ${this.#redact(key)}`);
        seen.add(key);
      }
    }
    return out;
  }

  /** The next page, only on the configured host (the key is never sent anywhere else). */
  #nextUrl(next: string, label: string): URL {
    let url: URL;
    try {
      url = new URL(next, this.#base);
    } catch {
      throw new VendorError(`vendor: ${label}: unreadable next_url ${JSON.stringify(this.#redact(next))}`);
    }
    if (url.origin !== this.#base.origin) {
      throw new VendorError(`vendor: ${label}: next_url points to ${url.origin}, not ${this.#base.origin}; not followed`);
    }
    return url;
  }

  /** One GET with rate limiting, time limit and retries; the parsed, checked body. */
  async #getJson<T extends Envelope>(url: URL, label: string, schema: z.ZodType<T>): Promise<T> {
    const { maxRetries } = this.#opts;
    const shown = this.#redact(url.toString());
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#attempt(url, label, shown, schema);
      } catch (err) {
        if (!(err instanceof Retryable) || this.#closed.signal.aborted) throw err;
        if (attempt >= maxRetries) {
          throw new VendorError(`vendor: ${label}: giving up after ${attempt + 1} attempts: ${err.message}`);
        }
        const delayMs = this.#delay(attempt, err.retryAfterMs);
        this.#log?.warn({ symbol: label, attempt: attempt + 1, delayMs, url: shown, reason: err.message }, "vendor request failed; retrying");
        await sleep(delayMs, undefined, { signal: this.#closed.signal }).catch(() => {
          throw this.#closedError();
        });
      }
    }
  }

  async #attempt<T extends Envelope>(url: URL, label: string, shown: string, schema: z.ZodType<T>): Promise<T> {
    await this.#bucket.take().catch((err: unknown) => {
      throw this.#closed.signal.aborted ? this.#closedError() : err;
    });
    this.requests++;
    const { timeoutMs } = this.#opts;
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), this.#closed.signal]);
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const res = await this.#fetch(url, { signal, headers: { accept: "application/json" } });
      status = res.status;
      retryAfter = res.headers.get("retry-after");
      text = await res.text();
    } catch (err) {
      if (this.#closed.signal.aborted) throw this.#closedError();
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const reason =
        e.name === "TimeoutError" ? `timed out after ${timeoutMs} ms` : `network error: ${e.cause?.code ?? e.cause?.message ?? e.message}`;
      throw new Retryable(this.#redact(`${reason} (${shown})`));
    }

    if (status === 429) throw new Retryable(`HTTP 429 too many requests (${shown})`, retryAfterMs(retryAfter));
    if (status >= 500) throw new Retryable(`HTTP ${status} (${shown})`, retryAfterMs(retryAfter));
    if (status === 401 || status === 403) {
      throw new VendorError(`vendor: ${label}: invalid or missing API key (HTTP ${status} from ${shown})`, status);
    }
    if (status < 200 || status >= 300) {
      throw new VendorError(`vendor: ${label}: HTTP ${status} from ${shown}: ${this.#redact(snippet(text))}`, status);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new VendorError(`vendor: ${label}: malformed JSON from ${shown}: ${this.#redact(snippet(text))}`, status);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.path.join(".") || "(body)"}: ${issue.message}` : "unexpected shape";
      throw new VendorError(`vendor: ${label}: unexpected response from ${shown} (${where})`, status);
    }
    const body = parsed.data;
    if (body.status !== "OK" && body.status !== "DELAYED") {
      const said = body.error ?? body.message;
      throw new VendorError(`vendor: ${label}: status ${body.status} from ${shown}${said ? `: ${this.#redact(said)}` : ""}`, status);
    }
    return body;
  }

  /** Backoff before retry `attempt` + 1: Retry-After when given, else exponential with jitter. */
  #delay(attempt: number, retryAfter: number | undefined): number {
    const { backoffBaseMs, backoffMaxMs, maxRetryAfterMs } = this.#opts;
    const jitter = Math.random() * Math.min(backoffBaseMs, 1_000) * 0.25;
    if (retryAfter !== undefined) return Math.min(retryAfter, maxRetryAfterMs) + jitter;
    const step = Math.min(backoffMaxMs, backoffBaseMs * 2 ** attempt);
    return step / 2 + Math.random() * (step / 2);
  }

  /** `text` without the API key (as an apiKey parameter, or anywhere, plain or URL-encoded). */
  #redact(text: string): string {
    let out = text.replace(/([?&]apiKey=)[^&\s"']*/gi, "$1***");
    for (const form of new Set([this.#key, encodeURIComponent(this.#key)])) out = out.split(form).join("***");
    return out;
  }
}

/** `fn` over `items` with at most `limit` in flight, results in order; the first failure stops new work and rejects. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}...` : flat || "(empty body)";
}

function dailyBarOf(entry: VendorEntry, a: AggBar): Bar {
  const at = new Date(a.t);
  return {
    date: entry.kind === "crypto" ? utcDateOf(at) : nyDate(at),
    open: a.o,
    high: a.h,
    low: a.l,
    close: a.c,
    volume: a.v,
  };
}

/** The first day of a range holding `bars` bars that ends at `through`. */
function startDate(entry: VendorEntry, through: string, bars: number): string {
  if (entry.kind === "crypto") return addDays(through, -(bars - 1));
  return addTradingDays(through, isTradingDay(through) ? -(bars - 1) : -bars);
}

/** The last day whose daily bar can no longer change at `now`. */
function settledThrough(entry: VendorEntry, now: Date): string {
  if (entry.kind === "crypto") return addDays(utcDateOf(new Date(now.getTime() - CRYPTO_SETTLE_MS)), -1);
  const t = new Date(now.getTime() - EQUITY_SETTLE_MS);
  const day = nyDate(t);
  const session = sessionOn(day);
  return session === null || t.getTime() >= session.close.getTime() ? day : addDays(day, -1);
}
