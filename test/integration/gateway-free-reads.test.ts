import http from "node:http";
import { gunzipSync } from "node:zlib";
import { BoardState, BoardStatus, ErrorBody, FreeBoard, FullBoard, SymbolDirectory } from "@board/proto";
import { fixtureSnapshot } from "@board/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack, until } from "./harness.js";

const stack = new Stack();
beforeAll(async () => {
  await stack.start();
  // No rail configured: the 402s still come from payments, with no offer to pay.
  await stack.startPayments();
});
afterAll(() => stack.stop());

/** node:http, so no Accept-Encoding is added behind our back (fetch adds one). */
function rawGet(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .get(`${stack.base}${path}`, { headers }, (r) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
}

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.base}${path}`, { headers });

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/application\/json/);
  const body = ErrorBody.parse(await res.json());
  expect(body.error.code).toBe(code);
  expect(body.error.status).toBe(status);
  return body;
}

describe("gateway free reads", () => {
  it("answers 503 with Retry-After while no board is on the bus", async () => {
    const res = await get("/api/board/free");
    await expectError(res, 503, "service_unavailable");
    expect(res.headers.get("retry-after")).toBe("5");
  });

  it("serves every free endpoint with its schema, the freshness block and the X-Board headers", async () => {
    await stack.startBoard();
    await stack.publishTwoDays();
    await until(() => stack.board!.publication()?.views.has("free") === true && stack.board!.publication()!.board.asof_daily === "2026-11-20");
    const cases = [
      ["/api/board/free", FreeBoard],
      ["/api/board/agent?preview=1", FullBoard],
      ["/api/board/symbols", SymbolDirectory],
      ["/api/board/status", BoardStatus],
      ["/api/board/state", BoardState],
    ] as const;
    for (const [path, schema] of cases) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      const body = schema.parse(await res.json()) as { freshness: { market_open: boolean; data_age_seconds: number; next_refresh_at: string } };
      expect(res.headers.get("x-board-market-open")).toBe(String(body.freshness.market_open));
      expect(res.headers.get("x-board-next-refresh")).toBe(body.freshness.next_refresh_at);
      expect(res.headers.get("x-board-data-age")).toBe(String(body.freshness.data_age_seconds));
      expect(res.headers.get("etag")).toMatch(/^W\/"[0-9a-f]{32}"$/);
    }
    // Reads served come from metering's count of the served-read stream, per route.
    let status = BoardStatus.parse(await (await get("/api/board/status")).json());
    await until(async () => {
      status = BoardStatus.parse(await (await get("/api/board/status")).json());
      return (status.reads_served?.["/api/board/symbols"] ?? 0) >= 1;
    });
    expect(status.reads_served?.["/api/board/free"]).toBeGreaterThanOrEqual(1);
    expect(status.pending.reads_served).toBeUndefined();
    expect(status.last_settlement_at).toBeNull();
  });

  it("compresses with gzip when the client accepts it, and answers 304 to a matching If-None-Match", async () => {
    const zipped = await rawGet("/api/board/free", { "accept-encoding": "gzip" });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.headers.vary).toBe("Accept-Encoding");
    FreeBoard.parse(JSON.parse(gunzipSync(zipped.body).toString()));
    const plain = await rawGet("/api/board/free");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    FreeBoard.parse(JSON.parse(plain.body.toString()));
    expect(zipped.body.length).toBeLessThan(plain.body.length);
    const cached = await rawGet("/api/board/free", { "if-none-match": String(plain.headers.etag) });
    expect(cached.status).toBe(304);
    expect(cached.body.length).toBe(0);
  });

  it("answers 402 on every paid route, 404 on unknown paths, 405 on wrong methods and 400 on bad queries", async () => {
    for (const path of ["/api/board/agent", "/api/board/regime", "/api/board/name?sym=AAPL", "/api/board/crypto/night"]) {
      const res = await get(path);
      expect(res.status, path).toBe(402);
      // x402 fixes this body's shape: `error` is the reason code (DESIGN.md error shapes).
      expect(((await res.json()) as { error: string }).error).toBe("payment_required");
      expect(res.headers.get("payment-required")).toBeTruthy();
    }
    await expectError(await get("/api/board/nope"), 404, "not_found");
    const post = await fetch(`${stack.base}/api/board/free`, { method: "POST" });
    const body = await expectError(post, 405, "method_not_allowed");
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect(body.error.allowed_methods).toEqual(["GET", "HEAD"]);
    const bad = await expectError(await get("/api/board/agent?preview=2"), 400, "invalid_query");
    expect(bad.error.param).toBe("preview");
    expect((await expectError(await get("/api/board/agent?preview=1&preview=1"), 400, "invalid_query")).error.param).toBe("preview");
    expect((await expectError(await get("/api/board/name?sym="), 400, "invalid_query")).error.param).toBe("sym");
    expect((await expectError(await get("/api/board/name?sym=A,B,C,D,E,F,G,H,I,J,K"), 400, "invalid_query")).error.param).toBe("sym");
    expect((await expectError(await get("/api/board/asof"), 400, "invalid_query")).error.param).toBe("date");
  });

  it("says how late a board's prices are: data_delay and X-Board-Data-Delay from its provider, absent where the board did not say", async () => {
    const vendorBoard = fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T10:00:00-08:00", seed: 4, intraday: true });
    vendorBoard.board.provider = { name: "vendor", detail: "Alpaca market data (iex feed)", simulated: false, vendor: "alpaca", feed: "iex", delay: "delayed_15m" };
    await stack.publish(vendorBoard);
    await until(() => stack.board!.publication()?.board.provider.delay === "delayed_15m");
    const res = await get("/api/board/status");
    const body = BoardStatus.parse(await res.json());
    expect(body.freshness.data_delay).toBe("delayed_15m");
    expect(res.headers.get("x-board-data-delay")).toBe("delayed_15m");
    expect(body.freshness.poll_hint).toContain("15-minute delayed feed");
    // The free board is cut from the earlier day's board (a fixture that does not say its delay).
    const free = await get("/api/board/free");
    expect(FreeBoard.parse(await free.json()).freshness.data_delay).toBeUndefined();
    expect(free.headers.get("x-board-data-delay")).toBeNull();
  });
});
