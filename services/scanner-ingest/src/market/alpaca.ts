// The `vendor` market data provider on Alpaca's Market Data API (https://docs.alpaca.markets).
//
//   stocks, ETFs: GET {base}/v2/stocks/bars?symbols=A,B,...&timeframe=1Day|5Min&start=&end=
//                     &adjustment=all&feed=iex|sip&limit=10000[&page_token=]
//                 GET {base}/v2/stocks/snapshots?symbols=A,B,...&feed=iex|sip|delayed_sip
//   crypto:       GET {base}/v1beta3/crypto/us/bars?symbols=BTC/USD,ETH/USD&timeframe=1Day|5Min&start=&end=&limit=10000
//
// Responses: bars {"bars":{"SYM":[{"t","o","h","l","c","v","n","vw"}]},"next_page_token":string|null},
// sorted by symbol and then time; `limit` counts data points across all the symbols of a request
// (1..10000), so a long history of many names takes several pages, followed with page_token.
// Stock snapshots: {"SYM":{"latestTrade","latestQuote","minuteBar","dailyBar","prevDailyBar"}|null}.
// Stocks need the key (APCA-API-KEY-ID / APCA-API-SECRET-KEY headers); historical crypto data is
// public and sent without it. Symbols: stocks as the universe spells them (Alpaca writes class
// shares with a dot, BRK.B, BF.B); crypto BTC-USD is BTC/USD. Equity daily bars are stamped at
// midnight New York (04:00Z or 05:00Z) and dated by their New York date; crypto daily bars at 00:00
// UTC (Alpaca moved them from Chicago midnight to UTC in 2025) and dated by their UTC date.
//
// What the plans give (docs.alpaca.markets "About Market Data API", "Market Data FAQ"):
//   Basic (free): real-time data from IEX only (one exchange, about 2-3% of the volume, and no
//     closing auction, so IEX volumes and closes differ from the consolidated ones); SIP (all US
//     exchanges) history older than 15 minutes; the latest and snapshot endpoints give SIP only
//     as `delayed_sip` (15 minutes late); 200 historical API calls a minute.
//   Algo Trader Plus ($99/month): real-time SIP everywhere; 10,000 calls a minute.
//   Crypto: free for everyone, no key needed for historical data.
// So the feeds this provider takes (ALPACA_FEED):
//   iex          (default, Basic) daily bars and snapshots from IEX, in real time: delay real_time.
//   delayed_sip  (Basic) SIP daily bars (asked at most up to 16 minutes ago) and SIP snapshots
//                15 minutes late: full volume, delay delayed_15m.
//   sip          (Algo Trader Plus) SIP everywhere in real time: delay real_time.
//
// prepareScan fetches the whole scan in a few multi-symbol requests: the equities' daily bars in
// chunks of CHUNK symbols (200 symbols keep a URL near 1.5 KB, well inside what servers take;
// paging is by data points anyway), the crypto daily bars in one request, and during market hours
// one snapshots request per chunk for the day in progress, plus one request of the crypto 5-minute
// bars for the crypto quotes. Daily bars are cached per symbol, settled days for the life of the
// process (equities: 4.5 hours after the close; crypto: 30 minutes after the UTC day ends) as in
// vendor.ts, the younger tail for FRESH_MS. Reads are answered from what was prepared; a name it
// lacks (left out of a response, or never prepared) is fetched on its own.

import { addTradingDays, isTradingDay, nyDate, previousSession, sessionAt, sessionOn } from "@board/market-calendar";
import type { ProviderInfo } from "@board/proto";
import { z } from "zod";
import { AlpacaHttp, type AlpacaLog, type FetchLike } from "./alpaca-http.js";
import { addDays, toEpochDay, utcDateOf } from "./days.js";
import type { Bar, MarketDataProvider, ScanPlan } from "./provider.js";
import { VendorError, type VendorEntry } from "./vendor.js";

export type AlpacaFeed = "iex" | "sip" | "delayed_sip";

export type AlpacaOptions = {
  /** APCA-API-KEY-ID; without it (or the secret) only crypto works. */
  keyId?: string | undefined;
  /** APCA-API-SECRET-KEY. */
  secretKey?: string | undefined;
  /** Default "iex" (the free plan's real-time feed). */
  feed?: AlpacaFeed | undefined;
  /** Default https://data.alpaca.markets. */
  baseUrl?: string | undefined;
  /** Client-side rate limit; default 200 (the free plan's). */
  requestsPerMinute?: number | undefined;
  /** Requests the bucket may save up; default 1 (evenly spaced). */
  burst?: number | undefined;
  /** Time limit of one request; default 10 000 ms. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt; default 4. */
  maxRetries?: number | undefined;
  /** First backoff step; default 1000 ms, doubling per retry, plus jitter. */
  backoffBaseMs?: number | undefined;
  backoffMaxMs?: number | undefined;
  maxRetryAfterMs?: number | undefined;
  log?: AlpacaLog | undefined;
  /** The wall clock (which days are settled, how old a fetched tail is); default the system clock. */
  now?: (() => Date) | undefined;
  /** Default globalThis.fetch; a recorder or replayer of raw responses can stand in. */
  fetch?: FetchLike | undefined;
};

/** Symbols per multi-symbol request. */
export const CHUNK = 200;
/** Bars fetched beyond the asked count, so a day missing at the vendor still leaves `count` bars. */
const SLACK_BARS = 5;
const EQUITY_SETTLE_MS = 4.5 * 3_600_000;
const CRYPTO_SETTLE_MS = 30 * 60_000;
/** How long a fetched, not yet settled tail (and a prepared partial bar) answers reads. */
const FRESH_MS = 5 * 60_000;
/** The free plan refuses SIP data younger than 15 minutes: delayed_sip asks for bars up to this long ago. */
const SIP_FREE_LAG_MS = 16 * 60_000;
const MAX_PAGES = 200;

const ABar = z.object({ t: z.string(), o: z.number(), h: z.number(), l: z.number(), c: z.number(), v: z.number() });
type ABar = z.infer<typeof ABar>;
const BarsResponse = z.object({
  bars: z.record(z.string(), z.array(ABar).nullable()).nullable().optional(),
  next_page_token: z.string().nullable().optional(),
});
const Snapshot = z.object({ dailyBar: ABar.nullable().optional() }).nullable();
const StockSnapshots = z.record(z.string(), Snapshot);

/** Alpaca's symbol of a universe name. */
export function alpacaSymbol(entry: VendorEntry): string {
  return entry.kind === "crypto" ? entry.sym.replace("-", "/") : entry.sym;
}

type Series = {
  /** Days from..to are known: bars holds every bar Alpaca had in that range when fetched. */
  from: string;
  to: string;
  /** Days through settledTo can no longer change; the rest is fresh for FRESH_MS after fetchedAt. */
  settledTo: string;
  fetchedAt: number;
  bars: Bar[];
};

type Prepared = { atMs: number; fetchedAt: number; bar: Bar | null };

/** 5-minute crypto bars of [fromMs, toMs], for partial bars at any instant inside. */
type Minutes = { fromMs: number; toMs: number; fetchedAt: number; bars: { t: number; bar: ABar }[] };

export class AlpacaProvider implements MarketDataProvider {
  readonly info: ProviderInfo;
  readonly intraday = true;
  readonly feed: AlpacaFeed;
  readonly #http: AlpacaHttp;
  readonly #base: URL;
  readonly #now: () => Date;
  readonly #entries = new Map<string, VendorEntry>();
  readonly #series = new Map<string, Series>();
  readonly #partial = new Map<string, Prepared>();
  readonly #minutes = new Map<string, Minutes>();
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(entries: readonly VendorEntry[], opts: AlpacaOptions = {}) {
    this.feed = opts.feed ?? "iex";
    if (!["iex", "sip", "delayed_sip"].includes(this.feed)) throw new VendorError(`alpaca: feed must be iex, sip or delayed_sip, got ${JSON.stringify(this.feed)}`);
    const keyId = opts.keyId?.trim() || undefined;
    const secretKey = opts.secretKey?.trim() || undefined;
    if (Boolean(keyId) !== Boolean(secretKey)) {
      throw new VendorError("alpaca: give both the key id and the secret key (APCA_API_KEY_ID, APCA_API_SECRET_KEY), or neither for crypto only");
    }
    this.#http = new AlpacaHttp({
      keyId,
      secretKey,
      requestsPerMinute: opts.requestsPerMinute ?? 200,
      burst: opts.burst,
      timeoutMs: opts.timeoutMs ?? 10_000,
      maxRetries: opts.maxRetries ?? 4,
      backoffBaseMs: opts.backoffBaseMs ?? 1_000,
      backoffMaxMs: opts.backoffMaxMs ?? 30_000,
      maxRetryAfterMs: opts.maxRetryAfterMs ?? 120_000,
      log: opts.log,
      fetch: opts.fetch,
    });
    const base = opts.baseUrl ?? "https://data.alpaca.markets";
    this.#base = new URL(base.endsWith("/") ? base : `${base}/`);
    this.#now = opts.now ?? (() => new Date());
    for (const e of entries) this.#entries.set(e.sym, e);
    const stock = entries.find((e) => e.kind !== "crypto");
    if (stock !== undefined && !this.#http.hasKey) {
      throw new VendorError(
        `alpaca: the universe holds stocks and ETFs (${stock.sym}, ...), which need an Alpaca key (APCA_API_KEY_ID and APCA_API_SECRET_KEY); without one only crypto works`,
      );
    }
    const delay = this.feed === "delayed_sip" ? "delayed_15m" : "real_time";
    this.info = {
      name: "vendor",
      vendor: "alpaca",
      feed: this.feed,
      delay,
      simulated: false,
      // Published with every board: nothing about the deployment (key, host, limits) in it.
      detail:
        this.feed === "iex"
          ? "Alpaca market data, IEX feed (one exchange's trades, real time; adjusted daily bars, snapshots intraday)"
          : this.feed === "sip"
            ? "Alpaca market data, SIP feed (all US exchanges, real time; adjusted daily bars, snapshots intraday)"
            : "Alpaca market data, SIP feed 15 minutes delayed (adjusted daily bars, delayed snapshots intraday)",
    };
  }

  /** HTTP requests sent (attempts included). */
  get requests(): number {
    return this.#http.requests;
  }

  close(): void {
    this.#http.close();
  }

  clearCache(): void {
    this.#series.clear();
    this.#partial.clear();
    this.#minutes.clear();
  }

  async prepareScan(entries: readonly { sym: string; kind: string }[], scan: ScanPlan): Promise<void> {
    const known = entries.map((e) => this.#entryOf(e.sym));
    const equities = known.filter((e) => e.kind !== "crypto");
    const crypto = known.filter((e) => e.kind === "crypto");
    if (equities.length > 0) this.#needKey(equities[0]!);
    const count = scan.count + SLACK_BARS;
    const jobs: Promise<void>[] = [];
    if (count > SLACK_BARS) {
      jobs.push(this.#prepareDaily(equities, scan.through, count));
      const cryptoThrough = addDays(utcDateOf(scan.at), -1);
      jobs.push(this.#prepareDaily(crypto, scan.intraday || cryptoThrough < scan.through ? cryptoThrough : scan.through, count));
    }
    if (scan.intraday && equities.length > 0) jobs.push(this.#prepareSnapshots(equities, scan.at));
    if (crypto.length > 0) {
      // The crypto quotes read partial bars at the scan's instant and at the last US close.
      const usClose = previousSession(scan.at).close.getTime();
      const fromMs = Math.min(dayStartMs(usClose), dayStartMs(scan.at.getTime()));
      jobs.push(this.#prepareMinutes(crypto, fromMs, scan.at.getTime()));
    }
    await Promise.all(jobs);
  }

  async dailyBars(sym: string, through: string, count: number): Promise<Bar[]> {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`alpaca: count must be a non-negative integer, got ${count}`);
    toEpochDay(through);
    const entry = this.#entryOf(sym);
    if (count === 0) return [];
    this.#needKey(entry);
    const from = startDate(entry, through, count + SLACK_BARS);
    const bars = await this.#withLock(sym, async () => {
      const missing = this.#missing(entry, from, through);
      if (missing.length > 0) {
        const got = new Map<string, ABar[]>();
        for (const [a, b] of missing) for (const [s, list] of await this.#bars([entry], a, b, "1Day")) got.set(s, [...(got.get(s) ?? []), ...list]);
        this.#merge(entry, from, through, missing, got.get(alpacaSymbol(entry)) ?? []);
      }
      return this.#series.get(sym)?.bars ?? [];
    });
    const upTo = bars.filter((b) => b.date >= from && b.date <= through);
    return upTo.slice(Math.max(0, upTo.length - count)).map((b) => ({ ...b }));
  }

  async intradayBar(sym: string, at: Date): Promise<Bar | null> {
    const entry = this.#entryOf(sym);
    const atMs = at.getTime();
    if (!Number.isFinite(atMs)) throw new RangeError("alpaca: intradayBar needs a valid Date");
    const nowMs = this.#now().getTime();
    if (entry.kind === "crypto") {
      const m = this.#minutes.get(sym);
      if (!(m && atMs >= m.fromMs && atMs <= m.toMs && nowMs - m.fetchedAt < FRESH_MS)) {
        const fromMs = dayStartMs(atMs);
        await this.#prepareMinutes([entry], fromMs, atMs);
      }
      return aggregate(this.#minutes.get(sym)?.bars ?? [], utcDateOf(at), dayStartMs(atMs), atMs);
    }
    this.#needKey(entry);
    const session = sessionAt(at);
    if (session === null) return null;
    const p = this.#partial.get(sym);
    if (p && p.atMs === atMs && nowMs - p.fetchedAt < FRESH_MS) return p.bar && { ...p.bar };
    // Not prepared at this instant: today's 5-minute bars up to `at`.
    const openMs = session.open.getTime();
    const minutes = (await this.#bars([entry], new Date(openMs).toISOString(), at.toISOString(), "5Min")).get(alpacaSymbol(entry)) ?? [];
    const parsed = minutes.map((bar) => ({ t: Date.parse(bar.t), bar }));
    return aggregate(parsed, session.date, openMs, atMs);
  }

  #entryOf(sym: string): VendorEntry {
    const entry = this.#entries.get(sym);
    if (entry === undefined) throw new RangeError(`alpaca: unknown symbol "${sym}" (not in the universe)`);
    const ok = entry.kind === "crypto" ? /^[A-Z0-9]+-[A-Z]+$/.test(sym) : /^[A-Z0-9][A-Z0-9.]*$/.test(sym);
    if (!ok) throw new RangeError(`alpaca: symbol "${sym}" cannot be sent to Alpaca`);
    return entry;
  }

  #needKey(entry: VendorEntry): void {
    if (entry.kind !== "crypto" && !this.#http.hasKey) {
      throw new VendorError(
        `alpaca: ${entry.sym}: stock and ETF data need an Alpaca key (APCA_API_KEY_ID and APCA_API_SECRET_KEY); without one only crypto works`,
      );
    }
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

  /** The ranges of [from, through] a read of `entry` must fetch: none when the cache answers. */
  #missing(entry: VendorEntry, from: string, through: string): [string, string][] {
    const s = this.#series.get(entry.sym);
    const known = s && this.#knownTo(s);
    const out: [string, string][] = [];
    if (!s || known === undefined || !(s.from <= addDays(through, 1) && addDays(known, 1) >= from)) out.push([from, through]);
    else {
      if (from < s.from) out.push([from, addDays(s.from, -1)]);
      if (through > known) out.push([addDays(known, 1) > from ? addDays(known, 1) : from, through]);
    }
    // A range without a session that has begun (a weekend, the morning before the open) has no
    // equity bar to fetch.
    const nowMs = this.#now().getTime();
    return entry.kind === "crypto" ? out : out.filter(([a, b]) => hasStartedSession(a, b, nowMs));
  }

  /** The last day a series still answers for: its fetched end while fresh, else its settled days. */
  #knownTo(s: Series): string {
    return this.#now().getTime() - s.fetchedAt < FRESH_MS ? s.to : s.settledTo;
  }

  /** Folds fetched bars of the `fetched` ranges into the symbol's series (settled days stay for good). */
  #merge(entry: VendorEntry, from: string, through: string, fetched: [string, string][], bars: ABar[]): void {
    const s = this.#series.get(entry.sym);
    const known = s && this.#knownTo(s);
    const touches = s !== undefined && known !== undefined && s.from <= addDays(through, 1) && addDays(known, 1) >= from;
    const byDate = new Map<string, Bar>();
    if (s && touches) for (const b of s.bars) if (b.date <= known!) byDate.set(b.date, b);
    for (const [a, b] of fetched) for (const d of [...byDate.keys()]) if (d >= a && d <= b) byDate.delete(d);
    for (const a of bars) {
      const bar = dailyBarOf(entry, a);
      if (fetched.some(([x, y]) => bar.date >= x && bar.date <= y)) byDate.set(bar.date, bar);
    }
    const coveredFrom = s && touches && s.from < from ? s.from : from;
    const coveredTo = s && touches && known! > through ? known! : through;
    const settled = settledThrough(entry, this.#now());
    this.#series.set(entry.sym, {
      from: coveredFrom,
      to: coveredTo,
      settledTo: coveredTo < settled ? coveredTo : settled < coveredFrom ? addDays(coveredFrom, -1) : settled,
      fetchedAt: this.#now().getTime(),
      bars: [...byDate.values()].filter((b) => b.date >= coveredFrom && b.date <= coveredTo).sort((x, y) => (x.date < y.date ? -1 : 1)),
    });
  }

  /** The daily bars of every entry through `through`, grouped by the range each still lacks. */
  async #prepareDaily(entries: VendorEntry[], through: string, bars: number): Promise<void> {
    const groups = new Map<string, { range: [string, string][]; entries: VendorEntry[]; from: string }>();
    for (const e of entries) {
      const from = startDate(e, through, bars);
      const range = this.#missing(e, from, through);
      if (range.length === 0) continue;
      const key = JSON.stringify(range);
      const g = groups.get(key) ?? { range, entries: [], from };
      g.entries.push(e);
      groups.set(key, g);
    }
    await Promise.all(
      [...groups.values()].flatMap((g) =>
        chunks(g.entries, CHUNK).map(async (chunk) => {
          const got = new Map<string, ABar[]>();
          for (const [a, b] of g.range) for (const [s, list] of await this.#bars(chunk, a, b, "1Day")) got.set(s, [...(got.get(s) ?? []), ...list]);
          // An answer without a bar for any name of the chunk is an answer for all of them (no
          // trades yet); a name left out of an answer that has others is fetched on its own.
          const none = chunk.every((e) => !got.get(alpacaSymbol(e))?.length);
          for (const e of chunk) {
            const list = got.get(alpacaSymbol(e)) ?? [];
            if (none || list.length > 0) this.#merge(e, g.from, through, g.range, list);
          }
        }),
      ),
    );
  }

  async #prepareSnapshots(entries: VendorEntry[], at: Date): Promise<void> {
    const session = sessionAt(at);
    if (session === null) return;
    const feed = this.feed;
    await Promise.all(
      chunks(entries, CHUNK).map(async (chunk) => {
        const url = new URL("v2/stocks/snapshots", this.#base);
        url.searchParams.set("symbols", chunk.map(alpacaSymbol).join(","));
        url.searchParams.set("feed", feed);
        const label = chunkLabel(chunk);
        const parsed = StockSnapshots.safeParse(await this.#http.getJson(url, label, true));
        if (!parsed.success) throw new VendorError(`alpaca: ${label}: unexpected snapshots response (${issueOf(parsed.error)})`);
        const fetchedAt = this.#now().getTime();
        for (const e of chunk) {
          const snap = parsed.data[alpacaSymbol(e)];
          if (snap === undefined) continue; // left out: the read fetches it on its own
          const d = snap?.dailyBar;
          checkBar(d ?? null, e.sym);
          // The snapshot's daily bar is the latest one: before the day's first trade it is yesterday's.
          const bar = d && nyDate(new Date(d.t)) === session.date ? { ...dailyBarOf(e, d), date: session.date } : null;
          this.#partial.set(e.sym, { atMs: at.getTime(), fetchedAt, bar });
        }
      }),
    );
  }

  async #prepareMinutes(entries: VendorEntry[], fromMs: number, toMs: number): Promise<void> {
    const got = await this.#bars(entries, new Date(fromMs).toISOString(), new Date(toMs).toISOString(), "5Min");
    const fetchedAt = this.#now().getTime();
    for (const e of entries) {
      const list = (got.get(alpacaSymbol(e)) ?? []).map((bar) => ({ t: Date.parse(bar.t), bar }));
      this.#minutes.set(e.sym, { fromMs, toMs, fetchedAt, bars: list });
    }
  }

  /**
   * GET bars of `entries` (all stocks or all crypto) over [a, b] (dates, or instants for 5Min),
   * following next_page_token; the bars per Alpaca symbol, oldest first.
   */
  async #bars(entries: VendorEntry[], a: string, b: string, timeframe: "1Day" | "5Min"): Promise<Map<string, ABar[]>> {
    const crypto = entries[0]?.kind === "crypto";
    const label = chunkLabel(entries);
    const url = new URL(crypto ? "v1beta3/crypto/us/bars" : "v2/stocks/bars", this.#base);
    url.searchParams.set("symbols", entries.map(alpacaSymbol).join(","));
    url.searchParams.set("timeframe", timeframe);
    const start = timeframe === "1Day" ? `${a}T00:00:00Z` : a;
    let end = timeframe === "1Day" ? `${b}T23:59:59Z` : b;
    if (!crypto && this.feed === "delayed_sip") {
      const latest = this.#now().getTime() - SIP_FREE_LAG_MS;
      if (Date.parse(end) > latest) end = new Date(latest).toISOString();
    }
    url.searchParams.set("start", start);
    url.searchParams.set("end", end);
    if (!crypto) {
      url.searchParams.set("adjustment", "all");
      url.searchParams.set("feed", this.feed === "iex" ? "iex" : "sip");
    }
    url.searchParams.set("limit", "10000");
    const out = new Map<string, ABar[]>();
    if (Date.parse(end) < Date.parse(start)) return out;
    const seen = new Set<string>();
    for (let page = 0; ; page++) {
      if (page >= MAX_PAGES) throw new VendorError(`alpaca: ${label}: more than ${MAX_PAGES} pages of bars`);
      const parsed = BarsResponse.safeParse(await this.#http.getJson(url, label, !crypto));
      if (!parsed.success) throw new VendorError(`alpaca: ${label}: unexpected bars response (${issueOf(parsed.error)})`);
      for (const [sym, list] of Object.entries(parsed.data.bars ?? {})) {
        for (const bar of list ?? []) checkBar(bar, sym);
        out.set(sym, [...(out.get(sym) ?? []), ...(list ?? [])]);
      }
      const token = parsed.data.next_page_token;
      if (!token) break;
      if (seen.has(token)) throw new VendorError(`alpaca: ${label}: next_page_token repeats`);
      seen.add(token);
      url.searchParams.set("page_token", token);
    }
    return out;
  }
}

/** The factory the wiring calls: the universe's names and the ALPACA_* settings. */
export function createAlpacaProvider(entries: readonly VendorEntry[], options: AlpacaOptions = {}): AlpacaProvider {
  return new AlpacaProvider(entries, options);
}

function checkBar(bar: ABar | null, sym: string): void {
  if (bar === null) return;
  if (![bar.o, bar.h, bar.l, bar.c].every((p) => Number.isFinite(p) && p > 0) || !(bar.v >= 0) || bar.h < bar.l || Number.isNaN(Date.parse(bar.t))) {
    throw new VendorError(`alpaca: ${sym}: implausible bar ${JSON.stringify(bar)}`);
  }
}

function issueOf(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "(body)"}: ${issue.message}` : "unexpected shape";
}

function chunkLabel(entries: readonly VendorEntry[]): string {
  const first = entries[0]?.sym ?? "(none)";
  return entries.length === 1 ? first : `${first} and ${entries.length - 1} more`;
}

function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

function dayStartMs(ms: number): number {
  return Math.floor(ms / 86_400_000) * 86_400_000;
}

/** The partial bar of `date` from the 5-minute bars starting in [startMs, atMs]; null without one. */
function aggregate(minutes: readonly { t: number; bar: ABar }[], date: string, startMs: number, atMs: number): Bar | null {
  let out: Bar | null = null;
  for (const { t, bar: m } of minutes) {
    if (t < startMs || t > atMs) continue;
    if (out === null) out = { date, open: m.o, high: m.h, low: m.l, close: m.c, volume: m.v };
    else {
      out.high = Math.max(out.high, m.h);
      out.low = Math.min(out.low, m.l);
      out.close = m.c;
      out.volume += m.v;
    }
  }
  return out;
}

function dailyBarOf(entry: VendorEntry, a: ABar): Bar {
  const at = new Date(a.t);
  return { date: entry.kind === "crypto" ? utcDateOf(at) : nyDate(at), open: a.o, high: a.h, low: a.l, close: a.c, volume: a.v };
}

function hasStartedSession(a: string, b: string, nowMs: number): boolean {
  for (let d = a; d <= b; d = addDays(d, 1)) {
    const session = sessionOn(d);
    if (session !== null && session.open.getTime() <= nowMs) return true;
  }
  return false;
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
