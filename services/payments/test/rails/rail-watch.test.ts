import http from "node:http";
import type { AddressInfo } from "node:net";
import { PaymentRails, type RailName } from "@board/proto";
import { createLogger } from "@board/service-kit";
import { afterEach, describe, expect, it } from "vitest";
import { causeOf, RailCheckFailed, reasonOf } from "../../src/rails/backend-failure.js";
import { RailWatch, type RailNotes, type WatchedRail } from "../../src/rails/rail-watch.js";

const FAST = { initialMs: 5, maxMs: 20, jitter: 0 };

/** A logger writing JSON lines into `lines`. */
function capture(lines: Record<string, unknown>[]) {
  return createLogger("payments", "debug", "test", { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
}

/** A rail whose backend is down until `up` is set. */
function switchable(name: RailName, failure: () => Error = () => Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } })) {
  const rail = { name, up: false, asks: 0, bringUp: async () => {
    rail.asks++;
    if (!rail.up) throw failure();
  } };
  return rail satisfies WatchedRail;
}

const until = async (cond: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
};

const watches: RailWatch[] = [];
afterEach(() => {
  for (const w of watches.splice(0)) w.stop();
});

function watch(opts: { lines?: Record<string, unknown>[]; changes?: PaymentRails[]; timeoutMs?: number } = {}) {
  const w = new RailWatch({
    mode: "development",
    schedule: FAST,
    timeoutMs: opts.timeoutMs ?? 1000,
    log: capture(opts.lines ?? []),
    onChange: (r) => opts.changes?.push(r),
  });
  watches.push(w);
  return w;
}

describe("RailWatch", () => {
  it("reports every rail: live when its backend answered, down when not, off when not configured", async () => {
    const lines: Record<string, unknown>[] = [];
    const w = watch({ lines });
    const base = switchable("base");
    base.up = true;
    await w.start([base, switchable("batched"), { name: "mpp", bringUp: () => Promise.resolve() }]);
    const report = PaymentRails.parse(w.report());
    expect(report).toEqual({
      mode: "development",
      rails: { base: "live", solana: "off", algorand: "off", batched: "down", mpp: "live" },
      reasons: { batched: "backend_unreachable" },
      warnings: {},
      settlement: {},
    });
    expect(w.isLive("base")).toBe(true);
    expect(w.isLive("batched")).toBe(false);
    // Live at the first ask is the start line's to say (start.ts); a rail down is said at once, with its reason.
    const said = lines.filter((l) => l["level"] !== 20); // retries already under way are debug lines
    expect(said.map((l) => [l["rail"], l["state"], l["reason"]])).toEqual([["batched", "down", "backend_unreachable"]]);
  });

  it("asks a down rail again with backoff and offers it once it answers; one line per change, no stack, no error text", async () => {
    const lines: Record<string, unknown>[] = [];
    const changes: PaymentRails[] = [];
    const w = watch({ lines, changes });
    const batched = switchable("batched");
    await w.start([batched]);
    expect(w.report().rails.batched).toBe("down");
    await until(() => batched.asks >= 4);
    expect(w.report().rails.batched).toBe("down");
    batched.up = true;
    await until(() => w.isLive("batched"));

    const said = lines.filter((l) => l["level"] !== 20);
    expect(said.map((l) => [l["level"], l["state"], l["reason"]])).toEqual([
      [40, "down", "backend_unreachable"],
      [30, "live", "backend_answered"],
    ]);
    expect(said[0]).toMatchObject({ rail: "batched", cause: "ECONNREFUSED", retry_in_ms: 5 });
    for (const line of lines) {
      expect(line).not.toHaveProperty("err");
      expect(JSON.stringify(line)).not.toContain("fetch failed");
    }
    // Retries that changed nothing are debug lines, their waits doubling to the cap.
    const waits = lines.filter((l) => l["level"] === 20).map((l) => l["retry_in_ms"]);
    expect(waits.slice(0, 3)).toEqual([10, 20, 20]);
    // Down from the start (not offered yet), then down with its reason once asked, then live: each a change, retries none.
    expect(changes.map((c) => [c.rails.batched, c.reasons?.batched])).toEqual([
      ["down", undefined],
      ["down", "backend_unreachable"],
      ["live", undefined],
    ]);
    const asked = batched.asks;
    await new Promise((r) => setTimeout(r, 60));
    expect(batched.asks).toBe(asked); // a live rail is not asked again
  });

  it("counts a backend that holds the connection as down (backend_timeout)", async () => {
    const lines: Record<string, unknown>[] = [];
    const w = watch({ lines, timeoutMs: 30 });
    const started = Date.now();
    await w.start([{ name: "algorand", bringUp: () => new Promise(() => undefined) }]);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(w.report().rails.algorand).toBe("down");
    expect(lines.find((l) => l["state"] === "down")).toMatchObject({ rail: "algorand", reason: "backend_timeout" });
  });

  it("stops asking once stopped", async () => {
    const w = watch();
    const solana = switchable("solana");
    await w.start([solana]);
    w.stop();
    const asked = solana.asks;
    solana.up = true;
    await new Promise((r) => setTimeout(r, 60));
    expect(solana.asks).toBe(asked);
    expect(w.report().rails.solana).toBe("down");
  });
});

describe("RailWatch and what a rail's check finds", () => {
  const wrongChain = () => new RailCheckFailed("network_mismatch", "its RPC serves chain 31337, not the configured network's (8453)", { chain_id: 31337, expected_chain_id: 8453 });

  it("a check that fails is down with its own reason and a line that says what to fix, with what it found; asked again, live once the check passes", async () => {
    const lines: Record<string, unknown>[] = [];
    const changes: PaymentRails[] = [];
    const w = watch({ lines, changes });
    let fixed = false;
    const base: WatchedRail = {
      name: "base",
      bringUp: async () => {
        if (!fixed) throw wrongChain();
        return { settlement: "batched" } satisfies RailNotes;
      },
    };
    await w.start([base]);
    expect(PaymentRails.parse(w.report())).toMatchObject({ rails: { base: "down" }, reasons: { base: "network_mismatch" }, warnings: {}, settlement: {} });
    const down = lines.find((l) => l["state"] === "down");
    expect(down).toMatchObject({ level: 40, rail: "base", reason: "network_mismatch", chain_id: 31337, expected_chain_id: 8453, retry_in_ms: 5 });
    expect(down?.["msg"]).toBe("payment rail down: its RPC serves chain 31337, not the configured network's (8453)");
    fixed = true;
    await until(() => w.isLive("base"));
    expect(w.report()).toMatchObject({ rails: { base: "live" }, reasons: {}, settlement: { base: "batched" } });
    expect(lines.filter((l) => l["level"] !== 20).map((l) => [l["state"], l["reason"]])).toEqual([
      ["down", "network_mismatch"],
      ["live", "backend_answered"],
    ]);
    expect(changes.map((c) => [c.rails.base, c.reasons?.base])).toEqual([
      ["down", undefined],
      ["down", "network_mismatch"],
      ["live", undefined],
    ]);
  });

  it("a rail that comes up with warnings and an unbatched settlement says so in its report", async () => {
    const w = watch();
    await w.start([{ name: "base", bringUp: async () => ({ settlement: "unbatched", warnings: ["multicall3_missing"] }) }]);
    expect(PaymentRails.parse(w.report())).toMatchObject({ rails: { base: "live" }, warnings: { base: ["multicall3_missing"] }, settlement: { base: "unbatched" } });
  });

  it("a reason that changes while down is news (one line each); the same reason again is not", async () => {
    const lines: Record<string, unknown>[] = [];
    const w = watch({ lines });
    const failures = [new TypeError("fetch failed"), wrongChain(), wrongChain(), wrongChain()];
    let asks = 0;
    await w.start([{ name: "base", bringUp: async () => {
      throw failures[Math.min(asks++, failures.length - 1)];
    } }]);
    await until(() => asks >= 4);
    expect(lines.filter((l) => l["level"] !== 20).map((l) => l["reason"])).toEqual(["backend_unreachable", "network_mismatch"]);
    expect(w.report().reasons).toEqual({ base: "network_mismatch" });
  });

  it("takeDown: a live rail found lacking is down at once with the reason, not offered, and brought up again on the backoff", async () => {
    const lines: Record<string, unknown>[] = [];
    const w = watch({ lines });
    let funded = true;
    let asks = 0;
    await w.start([{ name: "mpp", bringUp: async () => {
      asks++;
      if (!funded) throw new RailCheckFailed("facilitator_cannot_pay_fees", "the facilitator cannot pay for one settlement transaction: fund it", { balance_eth: "0" });
    } }]);
    expect(w.isLive("mpp")).toBe(true);
    funded = false;
    w.takeDown("mpp", new RailCheckFailed("facilitator_cannot_pay_fees", "the facilitator cannot pay for one settlement transaction: fund it", { balance_eth: "0" }));
    expect(w.isLive("mpp")).toBe(false);
    expect(w.report().reasons).toEqual({ mpp: "facilitator_cannot_pay_fees" });
    expect(lines.find((l) => l["state"] === "down")).toMatchObject({ level: 40, rail: "mpp", reason: "facilitator_cannot_pay_fees", balance_eth: "0" });
    await until(() => asks >= 3);
    expect(w.isLive("mpp")).toBe(false);
    funded = true;
    await until(() => w.isLive("mpp"));
    // A rail that is down is not taken down again (its own retries are under way); one not watched is ignored.
    w.takeDown("solana", new RailCheckFailed("facilitator_cannot_pay_fees", "x"));
    expect(w.report().rails.solana).toBe("off");
  });

  it("warn sets and clears a live rail's warning, telling each change once", async () => {
    const changes: PaymentRails[] = [];
    const w = watch({ changes });
    await w.start([{ name: "base", bringUp: async () => ({ settlement: "batched", warnings: [] }) }]);
    const before = changes.length;
    w.warn("base", "facilitator_balance_low", true);
    w.warn("base", "facilitator_balance_low", true);
    expect(w.report().warnings).toEqual({ base: ["facilitator_balance_low"] });
    w.warn("base", "facilitator_balance_low", false);
    expect(w.report().warnings).toEqual({});
    expect(changes.length - before).toBe(2);
    // Not configured: nothing to warn about.
    w.warn("algorand", "facilitator_balance_low", true);
    expect(w.report().warnings).toEqual({});
  });
});

describe("reasonOf and causeOf", () => {
  it("tells a backend that is not there from one that answered wrongly, without its text", async () => {
    // A port with nothing listening: real fetch, real refusal.
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const refused = await fetch(`http://127.0.0.1:${port}/v1/x402/supported?key=secret`).catch((e: unknown) => e);
    expect(reasonOf(refused)).toBe("backend_unreachable");
    expect(causeOf(refused)).toEqual({ cause: "ECONNREFUSED" });

    const answered = Object.assign(new Error("HTTP request failed. URL: https://rpc.example/v2/KEY Status: 503"), { status: 503 });
    expect(reasonOf(answered)).toBe("backend_error");
    expect(causeOf(answered)).toEqual({ http_status: 503 });
    expect(reasonOf(Object.assign(new Error("The request took too long"), { name: "TimeoutError" }))).toBe("backend_timeout");
    expect(reasonOf(new RailCheckFailed("token_domain_mismatch", "another domain"))).toBe("token_domain_mismatch");
  });
});
