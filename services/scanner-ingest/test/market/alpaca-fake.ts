// A local stand-in for Alpaca's market data API (node:http on 127.0.0.1, port 0), built from the
// documented shapes: multi-symbol bars (/v2/stocks/bars, /v1beta3/crypto/us/bars) sorted by symbol
// and then time, `limit` counting data points across all symbols (default 1000, at most 10000),
// next_page_token / page_token paging; multi-symbol stock snapshots (/v2/stocks/snapshots, keyed by
// symbol at the top). Stock endpoints refuse a request without the key headers (403), crypto needs
// none. Each test can put scripted answers (errors, delays) in front of it.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ABar = { t: string; o: number; h: number; l: number; c: number; v: number; n: number; vw: number };

export type Seen = { path: string; query: URLSearchParams; headers: IncomingMessage["headers"] };

/** A scripted answer; "destroy" drops the connection, "hang" never answers. */
export type Scripted = { status: number; body: string; headers?: Record<string, string> } | "destroy" | "hang";

export class FakeAlpaca {
  readonly seen: Seen[] = [];
  /** Alpaca symbol -> daily bars, oldest first. */
  readonly daily = new Map<string, ABar[]>();
  /** Alpaca symbol -> 5-minute bars, oldest first. */
  readonly minute = new Map<string, ABar[]>();
  /** Alpaca symbol -> the snapshot's daily bar (the day in progress, or the last one). */
  readonly dailyBar = new Map<string, ABar>();
  readonly script: Scripted[] = [];
  /** When set, the answer to every request once the script is spent (a 429 storm, a vendor that hangs). */
  always: Scripted | null = null;
  /** Symbols left out of a multi-symbol answer (when asked with others), as a glitch would. */
  readonly dropInMulti = new Set<string>();
  keyId = "";
  secretKey = "";
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

  /** Requests to a path (prefix). */
  count(path: string): number {
    return this.seen.filter((s) => s.path.startsWith(path)).length;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.base);
    this.seen.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    const next = this.script.shift() ?? this.always ?? undefined;
    if (next === "destroy") {
      req.socket.destroy();
      return;
    }
    if (next === "hang") return;
    if (next !== undefined) return send(next.status, next.body, next.headers);

    const stocks = url.pathname.startsWith("/v2/stocks/");
    if (stocks && (req.headers["apca-api-key-id"] !== this.keyId || req.headers["apca-api-secret-key"] !== this.secretKey || !this.keyId)) {
      return send(403, { message: "forbidden." });
    }
    const symbols = (url.searchParams.get("symbols") ?? "").split(",").filter((s) => s !== "");
    if (symbols.length === 0) return send(400, { message: "symbols is required" });
    const kept = symbols.length > 1 ? symbols.filter((s) => !this.dropInMulti.has(s)) : symbols;

    if (url.pathname === "/v2/stocks/snapshots") {
      const feed = url.searchParams.get("feed");
      if (feed !== null && !["iex", "sip", "delayed_sip", "otc", "boats", "overnight"].includes(feed)) return send(400, { message: "invalid feed" });
      const body: Record<string, unknown> = {};
      for (const s of kept) {
        const d = this.dailyBar.get(s);
        if (d === undefined) continue;
        body[s] = {
          latestTrade: { t: d.t, x: "V", p: d.c, s: 100, c: ["@"], i: 1, z: "C" },
          latestQuote: { t: d.t, ax: "V", ap: d.c + 0.01, as: 1, bx: "V", bp: d.c - 0.01, bs: 1, c: ["R"], z: "C" },
          minuteBar: { ...d, v: 100 },
          dailyBar: d,
          prevDailyBar: this.daily.get(s)?.at(-1) ?? null,
        };
      }
      return send(200, body);
    }

    if (url.pathname === "/v2/stocks/bars" || url.pathname === "/v1beta3/crypto/us/bars") {
      const timeframe = url.searchParams.get("timeframe");
      if (timeframe !== "1Day" && timeframe !== "5Min") return send(400, { message: "invalid timeframe" });
      const limit = Number(url.searchParams.get("limit") ?? "1000");
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) return send(400, { message: "invalid limit: must be between 1 and 10000" });
      const start = Date.parse(url.searchParams.get("start") ?? "");
      const end = Date.parse(url.searchParams.get("end") ?? new Date().toISOString());
      if (Number.isNaN(start) || Number.isNaN(end)) return send(400, { message: "invalid start or end" });
      const source = timeframe === "1Day" ? this.daily : this.minute;
      // Sorted by symbol first, then by time.
      const all: [string, ABar][] = [];
      for (const s of [...kept].sort()) {
        for (const b of source.get(s) ?? []) {
          const t = Date.parse(b.t);
          if (t >= start && t <= end) all.push([s, b]);
        }
      }
      const token = url.searchParams.get("page_token");
      const offset = token ? Number(Buffer.from(token, "base64").toString("utf8").split("|")[1]) : 0;
      const page = all.slice(offset, offset + limit);
      const bars: Record<string, ABar[]> = {};
      for (const [s, b] of page) (bars[s] ??= []).push(b);
      const nextToken = offset + limit < all.length ? Buffer.from(`${page.at(-1)![0]}|${offset + limit}`).toString("base64") : null;
      return send(200, { bars, next_page_token: nextToken, ...(url.pathname.startsWith("/v1beta3") ? {} : { currency: "USD" }) });
    }
    return send(404, { message: "Not Found" });
  }
}
