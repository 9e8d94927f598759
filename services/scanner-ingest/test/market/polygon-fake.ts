// A local stand-in for Polygon.io's REST API (node:http on 127.0.0.1, port 0): it answers
// from synthetic series in Polygon's documented response format, and each test can put scripted
// answers (errors, delays, broken bodies) in front of it.
//
//   per ticker: /v2/aggs/ticker/{T}/range/{n}/{day|minute}/{from}/{to}  (from `daily`, `minute`)
//   grouped:    /v2/aggs/grouped/locale/us/market/stocks/{date}, /v2/aggs/grouped/locale/global/market/crypto/{date}
//               every ticker's bar of that day from `daily` ({"status","resultsCount","results":[{"T","o",...}]}),
//               tickers in `groupedOmits` left out (a response missing names)
//   snapshot:   /v2/snapshot/locale/us/markets/stocks/tickers?tickers=A,B and .../global/markets/crypto/tickers
//               the asked tickers found in `live` ({"status","count","tickers":[{"ticker","day","lastTrade",...}]})

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Agg = { o: number; h: number; l: number; c: number; v: number; vw: number; t: number; n: number };

/** A daily aggregate and the day it belongs to (the fake selects by day; `day` is not sent). */
export type DailyAgg = Agg & { day: string };

export type Seen = { path: string; query: URLSearchParams; at: number };

/** A ticker's snapshot: the day so far and the last trade. */
export type Live = { day: { o: number; h: number; l: number; c: number; v: number; vw: number }; lastTrade: { p: number; s: number; t: number } };

/** A scripted answer; "destroy" drops the connection, "hang" never answers. */
export type Scripted =
  | { status: number; body: string; headers?: Record<string, string>; delayMs?: number }
  | "destroy"
  | "hang";

export class FakePolygon {
  readonly seen: Seen[] = [];
  /** Ticker -> series, for daily (`day`) and 5-minute (`minute`) ranges. */
  readonly daily = new Map<string, DailyAgg[]>();
  readonly minute = new Map<string, Agg[]>();
  /** Ticker -> snapshot of the day in progress. */
  readonly live = new Map<string, Live>();
  /** Tickers the grouped responses leave out. */
  readonly groupedOmits = new Set<string>();
  /** Answers served, in order, before the series (a script per request). */
  readonly script: Scripted[] = [];
  /** When set, the answer to every request once the script is spent (a 429 storm, a vendor that hangs). */
  always: Scripted | null = null;
  /** Results per page; more make a next_url. */
  pageSize = 50_000;
  /** Send the whole minute series whatever the range (to test the client's own filtering). */
  minuteIgnoresRange = false;
  /** What next_url points to; default this server. */
  nextBase: string | null = null;
  #server: Server | null = null;
  base = "";

  async start(): Promise<this> {
    this.#server = createServer((req, res) => this.#handle(req, res));
    await new Promise<void>((resolve) => this.#server!.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.base);
    this.seen.push({ path: decodeURIComponent(url.pathname), query: url.searchParams, at: performance.now() });
    const next = this.script.shift() ?? this.always ?? undefined;
    if (next === "destroy") {
      req.socket.destroy();
      return;
    }
    if (next === "hang") return;
    if (next !== undefined) {
      const send = () => {
        res.writeHead(next.status, { "content-type": "application/json", ...next.headers });
        res.end(next.body);
      };
      if (next.delayMs) setTimeout(send, next.delayMs);
      else send();
      return;
    }
    const path = decodeURIComponent(url.pathname);
    const grouped = /^\/v2\/aggs\/grouped\/locale\/(us|global)\/market\/(stocks|crypto)\/(\d{4}-\d{2}-\d{2})$/.exec(path);
    if (grouped) return this.#grouped(res, grouped[2] === "crypto", grouped[3]!);
    const snap = /^\/v2\/snapshot\/locale\/(us|global)\/markets\/(stocks|crypto)\/tickers$/.exec(path);
    if (snap) return this.#snapshot(res, snap[2] === "crypto", url.searchParams.get("tickers") ?? "");
    const m = /^\/v2\/aggs\/ticker\/([^/]+)\/range\/(\d+)\/(day|minute)\/([^/]+)\/([^/]+)$/.exec(decodeURIComponent(url.pathname));
    if (!m) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "NOT_FOUND", request_id: "r", message: "Not found" }));
      return;
    }
    const [, ticker, , span, fromText, toText] = m as unknown as [string, string, string, string, string, string];
    const all: Agg[] =
      span === "day"
        ? (this.daily.get(ticker) ?? []).filter((a) => a.day >= fromText && a.day <= toText).map(({ day: _day, ...agg }) => agg)
        : (this.minute.get(ticker) ?? []).filter((a) => this.minuteIgnoresRange || (a.t >= Number(fromText) && a.t <= Number(toText)));
    const offset = Number(url.searchParams.get("cursor") ?? "0");
    const results = all.slice(offset, offset + this.pageSize);
    const body: Record<string, unknown> = {
      ticker,
      queryCount: results.length,
      resultsCount: results.length,
      adjusted: true,
      status: "OK",
      request_id: `req-${this.seen.length}`,
      count: results.length,
    };
    if (results.length > 0) body.results = results;
    if (offset + this.pageSize < all.length) {
      body.next_url = `${this.nextBase ?? this.base}${url.pathname}?cursor=${offset + this.pageSize}`;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }

  #grouped(res: ServerResponse, crypto: boolean, date: string): void {
    const results: (Omit<Agg, never> & { T: string })[] = [];
    for (const [ticker, series] of this.daily) {
      if (ticker.startsWith("X:") !== crypto || this.groupedOmits.has(ticker)) continue;
      const a = series.find((x) => x.day === date);
      if (a) results.push({ T: ticker, v: a.v, vw: a.vw, o: a.o, c: a.c, h: a.h, l: a.l, t: a.t, n: a.n });
    }
    // Polygon leaves `results` out on a day without bars (a holiday).
    const body: Record<string, unknown> = {
      adjusted: true,
      queryCount: results.length,
      request_id: `req-${this.seen.length}`,
      resultsCount: results.length,
      status: "OK",
    };
    if (results.length > 0) body.results = results;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }

  #snapshot(res: ServerResponse, crypto: boolean, tickers: string): void {
    const out = tickers
      .split(",")
      .filter((t) => t !== "" && t.startsWith("X:") === crypto && this.live.has(t))
      .map((ticker) => {
        const l = this.live.get(ticker)!;
        return {
          ticker,
          day: l.day,
          lastTrade: { c: [14, 41], i: "71675577320245", p: l.lastTrade.p, s: l.lastTrade.s, t: l.lastTrade.t, x: 4 },
          min: { ...l.day, av: l.day.v, t: Math.floor(l.lastTrade.t / 1e6), n: 10 },
          prevDay: { o: l.day.o, h: l.day.h, l: l.day.l, c: l.day.o, v: l.day.v, vw: l.day.vw },
          todaysChange: l.lastTrade.p - l.day.o,
          todaysChangePerc: ((l.lastTrade.p - l.day.o) / l.day.o) * 100,
          updated: l.lastTrade.t,
        };
      });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ status: "OK", request_id: `req-${this.seen.length}`, count: out.length, tickers: out }));
  }
}
