import { ROUTE_BY_PATH, VIEW_SCHEMAS, type BoardPublishedEvent, type BoardState } from "@board/proto";
import { describe, expect, it } from "vitest";
import { errorFromResponse, ok, type ClientError } from "../src/errors.js";
import type { StreamEnd } from "../src/events.js";
import { ReceiptLog, type Receipt } from "../src/receipts.js";
import { READS } from "../src/routes.js";
import { formatUsdc, SpendCap } from "../src/spend-cap.js";
import { watchChanges, watchView } from "../src/watch.js";

describe("routes", () => {
  it("types each read with the very schema proto serves it with", () => {
    for (const [path, schema] of Object.entries(READS)) {
      const route = ROUTE_BY_PATH.get(path);
      expect(route?.view, path).toBeTruthy();
      const free = route!.freeVariant && VIEW_SCHEMAS[route!.freeVariant.view] !== VIEW_SCHEMAS[route!.view!] ? VIEW_SCHEMAS[route!.freeVariant.view] : null;
      // A read whose free variant has a body of its own (asof?sample=1) is typed as either.
      if (free) expect((schema as unknown as { options: unknown[] }).options, path).toEqual([VIEW_SCHEMAS[route!.view!], free]);
      else expect(schema === VIEW_SCHEMAS[route!.view!], path).toBe(true);
    }
  });
});

const receipt = (price: string, at: string): Receipt => ({
  rail: "base",
  path: "/api/board/regime",
  url: "http://x/api/board/regime",
  price,
  network: "eip155:8453",
  asset: null,
  pay_to: null,
  transaction: "0x",
  payer: null,
  at,
  header: "PAYMENT-RESPONSE",
  decoded: {},
  payment: { header: "PAYMENT-SIGNATURE", value: "x" },
});

describe("the daily cap", () => {
  const now = () => new Date("2026-11-20T15:00:00Z");

  it("counts today's receipts (UTC day) and holds in flight; refuses past the cap with the price", () => {
    const log = new ReceiptLog();
    log.add(receipt("5000", "2026-11-19T23:59:59Z"));
    log.add(receipt("5000", "2026-11-20T00:00:00Z"));
    const cap = new SpendCap(12_000n, log, now);
    expect(cap.spentToday()).toBe(5000n);
    const hold = cap.hold(5000n);
    expect("release" in hold).toBe(true);
    expect(cap.hold(5000n)).toMatchObject({ code: "daily_cap_exceeded", price: "5000" });
    (hold as { release(): void }).release();
    const lost = cap.hold(7000n) as { keep(): void };
    lost.keep();
    expect(cap.spentToday()).toBe(12_000n);
    expect(cap.hold(1n)).toMatchObject({ code: "daily_cap_exceeded" });
  });

  it("formats base units as USDC", () => {
    expect([0n, 5000n, 250_000n, 1_000_000n, 99_995_000n].map(formatUsdc)).toEqual(["0", "0.005", "0.25", "1", "99.995"]);
  });
});

describe("errors from the board's bodies", () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status, headers });
  it("reads the board's error body, the x402 402 body, MPP problem+json and RFC 6749 errors", async () => {
    expect(await errorFromResponse(res(429, { error: { code: "daily_cap_reached", message: "m", status: 429, retry_after_seconds: 7 } }))).toMatchObject({ code: "daily_cap_reached", retry_after_seconds: 7 });
    expect(await errorFromResponse(res(402, { x402Version: 1, error: "payment_already_used", message: "used" }))).toMatchObject({ code: "payment_already_used", message: "used" });
    expect(await errorFromResponse(res(402, { code: "payment_insufficient_funds", detail: "d" }))).toMatchObject({ code: "payment_insufficient_funds", message: "d" });
    expect(await errorFromResponse(res(401, { error: "invalid_client", error_description: "no" }))).toMatchObject({ code: "invalid_client" });
    expect(await errorFromResponse(new Response("oops", { status: 503, headers: { "retry-after": "2" } }))).toMatchObject({ code: "service_unavailable", retry_after_seconds: 2 });
  });
});

describe("watch", () => {
  const state = (hash: string, nextRefreshInMs: number): BoardState => ({
    product: "scored-market-board",
    asof_daily: "2026-11-20",
    computed_at: "2026-11-20T09:55:00-08:00",
    snapshot: "0".repeat(64),
    views: { regime: hash },
    freshness: { market_open: true, data_age_seconds: 0, next_refresh_at: new Date(Date.now() + nextRefreshInMs).toISOString(), poll_hint: "hint" },
  });

  it("reads only when the view's hash changes, and tries a failed read again at the next poll", async () => {
    const hashes = ["a".repeat(32), "a".repeat(32), "b".repeat(32), "b".repeat(32), "c".repeat(32), "c".repeat(32)];
    const results = [true, true, false, true];
    let polls = 0;
    let reads = 0;
    const ac = new AbortController();
    const seen: string[] = [];
    for await (const event of watchView(
      "regime",
      {
        state: async () => {
          if (polls >= hashes.length) ac.abort();
          return ok(state(hashes[Math.min(polls++, hashes.length - 1)]!, 0));
        },
        read: async () => ({ ok: results[reads++] ?? true }),
      },
      { signal: ac.signal, minIntervalMs: 1, maxIntervalMs: 5 },
    )) {
      if (event.type === "read") seen.push(`${event.view_hash[0]}:${event.result.ok}`);
    }
    expect(seen).toEqual(["a:true", "b:true", "c:false", "c:true"]);
  });
});

describe("watch over the event stream", () => {
  const SNAP = "0".repeat(64);
  const state = (hash: string): BoardState => ({
    product: "scored-market-board",
    asof_daily: "2026-11-20",
    computed_at: "2026-11-20T09:55:00-08:00",
    snapshot: SNAP,
    views: { regime: hash },
    freshness: { market_open: true, data_age_seconds: 0, next_refresh_at: new Date(Date.now() + 60_000).toISOString(), poll_hint: "hint" },
  });
  const event = (seq: number, hash: string): BoardPublishedEvent => ({
    seq,
    asof_daily: "2026-11-20",
    computed_at: "2026-11-20T10:00:00-08:00",
    snapshot: SNAP,
    content_hash: "c".repeat(64),
    commitment: "d".repeat(64),
    views: { regime: hash },
    market_open: true,
    next_refresh_at: new Date(Date.now() + 60_000).toISOString(),
  });
  const lost = (status?: number): StreamEnd => ({ ok: false, error: { code: status ? "not_found" : "network_error", message: "gone", ...(status ? { status } : {}) } as ClientError });

  it("reads the state once, buys on each event whose hash changed, and reopens a lost stream from its last event", async () => {
    const ac = new AbortController();
    const opened: (number | undefined)[] = [];
    const streams: (BoardPublishedEvent[] | "end")[][] = [
      [[event(1, "a".repeat(32)), event(2, "b".repeat(32)), event(3, "b".repeat(32))], "end"],
      [[event(4, "c".repeat(32))], "end"],
    ];
    let states = 0;
    // What /api/board/state answers: the board of the latest event sent.
    let current = "a".repeat(32);
    const seen: string[] = [];
    const kinds: string[] = [];
    for await (const e of watchView(
      "regime",
      {
        state: async () => (states++, ok(state(current))),
        read: async () => ({ ok: true }),
        events: async function* (lastEventId) {
          opened.push(lastEventId);
          const script = streams.shift();
          if (!script) {
            ac.abort();
            return null;
          }
          for (const ev of script[0] as BoardPublishedEvent[]) {
            current = ev.views.regime!;
            yield ev;
          }
          return lost();
        },
      },
      { signal: ac.signal, minIntervalMs: 1, maxIntervalMs: 5 },
    )) {
      kinds.push(e.type);
      if (e.type === "read") seen.push(e.view_hash[0]!);
    }
    // a on start (state), b on event 2, nothing for 1 and 3 (same hash), c on event 4 after the reconnection.
    expect(seen).toEqual(["a", "b", "c"]);
    expect(opened).toEqual([undefined, 3, 4]);
    expect(states).toBe(3);
    expect(kinds.filter((k) => k === "events_lost")).toHaveLength(2);
  });

  it("tries a failed buy again from a fresh state read", async () => {
    const ac = new AbortController();
    const results = [true, false, true];
    let reads = 0;
    let states = 0;
    const seen: string[] = [];
    for await (const e of watchView(
      "regime",
      {
        state: async () => (states++, ok(state(states === 1 ? "a".repeat(32) : "b".repeat(32)))),
        read: async () => ({ ok: results[reads++] ?? true }),
        events: async function* () {
          if (states > 2) {
            ac.abort();
            return null;
          }
          yield event(7, "b".repeat(32));
          return lost();
        },
      },
      { signal: ac.signal, minIntervalMs: 1, maxIntervalMs: 5 },
    )) {
      if (e.type === "read") seen.push(`${e.view_hash[0]}:${e.result.ok}`);
    }
    expect(seen).toEqual(["a:true", "b:false", "b:true"]);
  });

  it("polls /api/board/state when the board has no event stream (404)", async () => {
    const ac = new AbortController();
    let states = 0;
    const kinds: string[] = [];
    for await (const e of watchView(
      "regime",
      {
        state: async () => {
          if (++states >= 4) ac.abort();
          return ok(state("a".repeat(32)));
        },
        read: async () => ({ ok: true }),
        // eslint-disable-next-line require-yield
        events: async function* () {
          return lost(404);
        },
      },
      { signal: ac.signal, minIntervalMs: 1, maxIntervalMs: 5 },
    ))
      kinds.push(e.type);
    // One read (the hash never changes), then the switch, then polls that buy nothing.
    expect(kinds).toEqual(["read", "polling"]);
    expect(states).toBeGreaterThanOrEqual(4);
  });

  it("watches changes: starts from the board it finds, asks for each change since the board last read, and moves on past a refusal that cannot mend", async () => {
    const ac = new AbortController();
    let current = "a".repeat(32);
    const asked: (string | null)[] = [];
    const seen: string[] = [];
    for await (const e of watchChanges(
      {
        state: async () => ok({ ...state(current), snapshot: current }),
        read: async (previous) => {
          asked.push(previous);
          return previous === "b".repeat(32) ? { ok: false, code: "board_too_old" } : { ok: true };
        },
        settled: (r) => (r as { code?: string }).code === "board_too_old",
        events: async function* () {
          for (const h of ["b", "c", "d"]) {
            current = h.repeat(32);
            yield { ...event(1, "x".repeat(32)), snapshot: current };
          }
          ac.abort();
          return null;
        },
      },
      { signal: ac.signal, minIntervalMs: 1, maxIntervalMs: 5 },
    )) {
      if (e.type === "read") seen.push(`${e.view_hash[0]}:${e.result.ok}`);
    }
    // Nothing bought for the board found at the start; b since a; c since b refused for good, so d is asked since c.
    expect(asked.map((h) => h?.[0] ?? null)).toEqual(["a", "b", "c"]);
    expect(seen).toEqual(["b:true", "c:false", "d:true"]);
  });
});
