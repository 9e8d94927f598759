import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { balanceOf, BoardClient, createPayer, devWalletConfig, RAILS, type DevWallets, type Rail } from "@board/client";
import { identityLicenseIssue, RegimeView } from "@board/proto";
import { request } from "@board/service-kit";
import { fixtureSnapshot, TestNatsServer } from "@board/service-kit/testing";
import { generateKeyPairSigner } from "@solana/kit";
import algosdk from "algosdk";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevChains } from "../../scripts/launcher/dev-chains.js";
import type { DevChains } from "../../scripts/launcher/rails.js";
import { Stack } from "./harness.js";
import { TRANSACTION } from "../settlement-references.js";

// @board/client against the whole paid path: gateway, identity, metering, board and payments on
// a nats-server of this file's own and a fresh Postgres database, every rail configured against
// the development chains `npm start` runs (local Base and Solana chains, the Algorand and Circle
// Gateway stand-ins), the buyers being the funded wallets of its dev-wallets.json.

const dir = mkdtempSync(path.join(tmpdir(), "client-test-"));
const stack = new Stack();
let nats: TestNatsServer | null = null;
let dev: DevChains;
let wallets: DevWallets;

beforeAll(async () => {
  nats = await TestNatsServer.start();
  await stack.start({ natsUrl: nats.url, natsSeeds: nats.seeds, metering: { BURST_CAPACITY: "100000", BURST_PER_SECOND: "100000" } });
  const boardUp = (async () => {
    await stack.startBoard();
    await stack.publishTwoDays();
  })();
  [dev] = await Promise.all([startDevChains({ gateway: stack.base, walletsFile: path.join(dir, "dev-wallets.json") }), boardUp]);
  wallets = dev.wallets;
  await stack.startPayments(dev.env);
  await stack.untilServing();
}, 90_000);

afterAll(async () => {
  await stack.stop();
  await dev?.stop();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const payingClient = async (rail: Rail, opts: { dailyCap?: number; fetch?: typeof fetch } = {}) =>
  new BoardClient({ baseUrl: stack.base, payer: await createPayer(devWalletConfig(wallets, rail)), ...opts });

async function balance(rail: Rail): Promise<bigint> {
  const b = await balanceOf(devWalletConfig(wallets, rail));
  if (!b.ok) throw new Error(b.error.message);
  return b.value.amount;
}


describe("free reads and credentials", () => {
  it("reads every free view typed from proto; a paid read without a payer is payment_required with its price", async () => {
    const client = new BoardClient({ baseUrl: stack.base });
    for (const r of await Promise.all([client.free(), client.preview(), client.symbols(), client.status(), client.state(), client.proof()])) {
      expect(r.ok, r.ok ? r.path : `${r.path}: ${r.error.code} ${r.error.message}`).toBe(true);
    }
    const preview = await client.preview();
    expect(preview.ok && preview.body.names.length).toBeGreaterThan(0);
    const paid = await client.read("/api/board/regime");
    expect(paid).toMatchObject({ ok: false, error: { code: "payment_required", price: "5000", status: 402 } });
    expect(await client.read("/api/board/nope" as "/api/board/regime")).toMatchObject({ ok: false, error: { code: "unknown_route" } });
  });

  it("a free key reads its tier (with the tier block) and a route outside it is still paid for", async () => {
    const client = new BoardClient({ baseUrl: stack.base });
    const key = await client.requestFreeKey("client-test@example.com");
    expect(key).toMatchObject({ ok: true, value: { daily_limit: 25 } });
    const regime = await client.read("/api/board/regime");
    expect(regime).toMatchObject({ ok: true, served: "credential", tier: { name: "free_key", used_today: 1, limit: 25 }, receipt: null });
    expect(await client.read("/api/board/buylist")).toMatchObject({ ok: false, error: { code: "payment_required" } });
  });

  it("a wallet signs in (SIWX, EVM) and reads the free tier; its session becomes a wallet key", async () => {
    const client = new BoardClient({ baseUrl: stack.base });
    const account = privateKeyToAccount(generatePrivateKey());
    expect((await client.signIn({ chain: "evm", account })).ok).toBe(true);
    expect(await client.read("/api/board/indices")).toMatchObject({ ok: true, served: "credential", tier: { name: "wallet", used_today: 1 } });
    expect(await client.walletKey()).toMatchObject({ ok: true, value: { tier: "wallet", address: account.address } });
    expect(await client.read("/api/board/movers")).toMatchObject({ ok: true, tier: { name: "wallet", used_today: 2 } });
  });

  it("Solana (signMessage) and Algorand (ed25519 over MX + message) wallets sign in too", async () => {
    const solana = new BoardClient({ baseUrl: stack.base });
    expect((await solana.signIn({ chain: "solana", signer: await generateKeyPairSigner() })).ok).toBe(true);
    expect(await solana.read("/api/board/crypto")).toMatchObject({ ok: true, tier: { name: "wallet", used_today: 1 } });
    const algorand = new BoardClient({ baseUrl: stack.base });
    const account = algosdk.generateAccount();
    expect((await algorand.signIn({ chain: "algorand", address: account.addr.toString(), secretKey: account.sk })).ok).toBe(true);
    expect(await algorand.read("/api/board/hold", { sym: "TA0" })).toMatchObject({ ok: true, tier: { name: "wallet", used_today: 1 } });
  });

  it("a license reads every paid route live; its bearer token too", async () => {
    const { key, license } = await request(stack.nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "client test" }, { timeoutMs: 5000 });
    const client = new BoardClient({ baseUrl: stack.base });
    client.useLicense(key);
    expect(await client.read("/api/board/buylist")).toMatchObject({ ok: true, served: "credential", tier: null });
    expect((await client.useOAuth(license.client_id, key)).ok).toBe(true);
    expect(await client.read("/api/board/sectors")).toMatchObject({ ok: true, served: "credential" });
    expect(client.receipts.all()).toEqual([]);
  });
});

describe("paid reads on every rail, with the development wallets", () => {
  for (const rail of RAILS) {
    it(`${rail}: pays once, keeps the receipt, the balance falls by the price; the payment sent again is delivered the same read again, not charged`, async () => {
      const client = await payingClient(rail);
      const before = await balance(rail);
      const read = await client.read("/api/board/regime");
      if (!read.ok) throw new Error(`${rail}: ${read.error.code} ${read.error.message}`);
      RegimeView.parse(read.body);
      expect(read.served).toBe("paid");
      expect(read.freshness?.next_refresh_at).toBeTruthy();
      expect(read.receipt).toMatchObject({ rail, path: "/api/board/regime", price: "5000" });
      expect(read.receipt!.transaction).toMatch(TRANSACTION[rail]);
      expect(read.receipt!.header).toBe(rail === "mpp" ? "Payment-Receipt" : "PAYMENT-RESPONSE");
      expect(client.receipts.all()).toEqual([read.receipt]);
      expect(client.spentToday()).toBe(5000n);
      expect(await balance(rail)).toBe(before - 5000n);

      expect(read.redelivery).toBeNull();
      const replay = await client.replay(read.receipt!);
      expect(replay).toMatchObject({ ok: true, served: "paid", redelivery: 1 });
      expect(replay.ok && replay.body).toEqual(read.body);
      expect(await balance(rail)).toBe(before - 5000n);
    });
  }
});

describe("the daily cap", () => {
  it("refuses, before anything is signed, the read that would pass it", async () => {
    const client = await payingClient("base", { dailyCap: 12_000 });
    const before = await balance("base");
    expect((await client.read("/api/board/regime")).ok).toBe(true);
    expect((await client.read("/api/board/indices")).ok).toBe(true);
    const third = await client.read("/api/board/movers");
    expect(third).toMatchObject({ ok: false, error: { code: "daily_cap_exceeded", price: "5000" } });
    expect(await client.read("/api/board/agent")).toMatchObject({ ok: false, error: { code: "daily_cap_exceeded", price: "250000" } });
    expect(client.spentToday()).toBe(10_000n);
    expect(client.receipts.all()).toHaveLength(2);
    expect(await balance("base")).toBe(before - 10_000n);
  });

  it("holds on every rail: with a cap of zero nothing is paid", async () => {
    for (const rail of RAILS) {
      const sent: string[] = [];
      const recording: typeof fetch = (input, init) => {
        const h = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
        if (h.has("payment-signature") || h.get("authorization")?.startsWith("Payment ")) sent.push(rail);
        return fetch(input, init);
      };
      const client = new BoardClient({ baseUrl: stack.base, payer: await createPayer(devWalletConfig(wallets, rail), { fetch: recording }), dailyCap: 0 });
      const before = await balance(rail);
      expect(await client.read("/api/board/regime"), rail).toMatchObject({ ok: false, error: { code: "daily_cap_exceeded" } });
      expect(sent, rail).toEqual([]);
      expect(await balance(rail), rail).toBe(before);
    }
  });
});

describe("watch()", () => {
  it("polling: buys the view once, polls without buying while its hash stands, and buys again when a new board is published", async () => {
    let polls = 0;
    const counting: typeof fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).includes("/api/board/state")) polls++;
      return fetch(input, init);
    };
    const client = await payingClient("base", { fetch: counting });
    const ac = new AbortController();
    const events = client.watch("/api/board/regime", { signal: ac.signal, minIntervalMs: 50, maxIntervalMs: 100, via: "poll" });
    try {
      const first = await events.next();
      expect(first.value).toMatchObject({ type: "read", result: { ok: true, served: "paid", body: { asof_daily: "2026-11-20" } } });

      let second: IteratorResult<unknown> | null = null;
      const pending = events.next().then((r) => (second = r));
      await new Promise((r) => setTimeout(r, 1_000));
      expect(second).toBeNull();
      expect(polls).toBeGreaterThanOrEqual(5);
      expect(client.receipts.all()).toHaveLength(1);

      await stack.publish(fixtureSnapshot({ asofDaily: "2026-11-23", computedAt: "2026-11-23T07:00:00-08:00", seed: 3 }));
      await pending;
      expect(second!.value).toMatchObject({ type: "read", result: { ok: true, served: "paid", body: { asof_daily: "2026-11-23" } } });
      expect(client.receipts.all()).toHaveLength(2);
    } finally {
      ac.abort();
      await events.return(undefined);
    }
  });

  it("over the event stream: reads the state once, buys the view, and buys again when a new board is published, without polling", async () => {
    const asked: string[] = [];
    const counting: typeof fetch = (input, init) => {
      asked.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
      return fetch(input, init);
    };
    const client = await payingClient("base", { fetch: counting });
    const ac = new AbortController();
    const events = client.watch("/api/board/regime", { signal: ac.signal, minIntervalMs: 50, maxIntervalMs: 100 });
    try {
      const first = await events.next();
      const asofNow = (first.value as { result: { body: { asof_daily: string } } }).result.body.asof_daily;
      expect(first.value).toMatchObject({ type: "read", result: { ok: true, served: "paid" } });
      let second: IteratorResult<unknown> | null = null;
      const pending = events.next().then((r) => (second = r));
      await new Promise((r) => setTimeout(r, 1_000));
      expect(second).toBeNull();
      expect(asked.filter((p) => p === "/api/board/state")).toHaveLength(1);
      expect(asked.filter((p) => p === "/api/board/events")).toHaveLength(1);
      expect(client.receipts.all()).toHaveLength(1);

      const t0 = performance.now();
      await stack.publish(fixtureSnapshot({ asofDaily: "2026-11-24", computedAt: "2026-11-24T07:00:00-08:00", seed: 4 }));
      await pending;
      console.log(`watch over events: bought the new board ${Math.round(performance.now() - t0)} ms after its publication was sent`);
      expect(asofNow).not.toBe("2026-11-24");
      expect(second!.value).toMatchObject({ type: "read", result: { ok: true, served: "paid", body: { asof_daily: "2026-11-24" } } });
      expect(client.receipts.all()).toHaveLength(2);
      // Still one state read and one stream: the change came down the stream.
      expect(asked.filter((p) => p === "/api/board/state")).toHaveLength(1);
      expect(asked.filter((p) => p === "/api/board/events")).toHaveLength(1);
    } finally {
      ac.abort();
      await events.return(undefined);
    }
  });

  it("watchChanges(): buys /api/board/changes since the board it started from when a new board is published", async () => {
    const client = await payingClient("base");
    const ac = new AbortController();
    const changes = client.watchChanges({ signal: ac.signal, minIntervalMs: 50, maxIntervalMs: 100 });
    try {
      const next = changes.next();
      // The watch starts from the current board (bought nothing for it): publish the next one.
      await new Promise((r) => setTimeout(r, 500));
      expect(client.receipts.all()).toHaveLength(0);
      await stack.publish(fixtureSnapshot({ asofDaily: "2026-11-25", computedAt: "2026-11-25T07:00:00-08:00", seed: 5 }));
      const first = (await next).value;
      expect(first).toMatchObject({ type: "read", result: { ok: true, served: "paid", body: { from: { asof_daily: "2026-11-24" }, to: { asof_daily: "2026-11-25" } } } });
      expect(client.receipts.all()).toHaveLength(1);
      expect(client.receipts.all()[0]!.path).toMatch(/^\/api\/board\/changes\?since=[0-9a-f]{64}$/);
    } finally {
      ac.abort();
      await changes.return(undefined);
    }
  });
});
