// A local stand-in for Polygon.io's aggregates API (node:http on 127.0.0.1, port 0): it answers
// from synthetic series in Polygon's documented response format, and each test can put scripted
// answers (errors, delays, broken bodies) in front of it.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type Agg = { o: number; h: number; l: number; c: number; v: number; vw: number; t: number; n: number };

/** A daily aggregate and the day it belongs to (the fake selects by day; `day` is not sent). */
export type DailyAgg = Agg & { day: string };

export type Seen = { path: string; query: URLSearchParams; at: number };

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
  /** Answers served, in order, before the series (a script per request). */
  readonly script: Scripted[] = [];
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
    const next = this.script.shift();
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
}
