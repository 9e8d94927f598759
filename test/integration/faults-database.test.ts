import { ErrorBody, identityLicenseIssue, ROUTE_BY_PATH } from "@board/proto";
import { request } from "@board/service-kit";
import type { EvmChain } from "@board/test-chains/evm";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import type pg from "pg";
import { createPublicClient, http as viemHttp, parseAbiItem, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TcpProxy } from "./fault-proxy.js";
import { FaultStack } from "./fault-stack.js";
import { Stack } from "./harness.js";
import { settledCount } from "./settled.js";

// Postgres black-holed in the middle of a statement (issue 19, item 5): the services reach it
// through a TCP proxy that freezes every connection (no byte crosses, nothing is reset) as soon
// as a service sends a given statement. The services run with short DATABASE_*_TIMEOUT_MS, so
// their bound (pg's read timeout: a server that does not answer at all) ends the call well
// before the gateway's bus timeout: the caller hears the service's 503 service_unavailable,
// quickly, and nothing was counted, claimed or charged. Once restored, the same services serve
// again at once. On a nats-server of this file's own and a local EVM chain.

/** The gateway's bus timeout here: the longest a read, an identity or a metering request waits (a claim 3x). */
const BUS_TIMEOUT_MS = 1500;
/** The services' bounds on Postgres (service-kit env.ts), far below the bus timeout. */
const STATEMENT_MS = 300;
const QUERY_MS = 500;
const DATABASE_TIMEOUTS = {
  DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
  DATABASE_QUERY_TIMEOUT_MS: String(QUERY_MS),
  DATABASE_ACQUIRE_TIMEOUT_MS: "500",
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "1000",
};
/** A fetch still open after this is a hang: the test fails. */
const HANG_MS = 12_000;

const figures: Record<string, unknown> = {};

const stack = new Stack();
/** The stack's own nats-server, Postgres behind a proxy, the chain (fault-stack.ts). */
const faults = new FaultStack(stack);
let chain: EvmChain;
let pgProxy: TcpProxy;
/** The test's own connection to the same database, straight to Postgres (never through the proxy). */
let directDb: pg.Client;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
const authorizationUsed = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");
/** Errors nobody handled while this file ran: each one would have stopped a real service process. */
const uncaught = faults.uncaught;

beforeAll(async () => {
  await faults.start({
    accounts: 1,
    stack: {
      metering: { ANON_BURST_CAPACITY: "100000", ANON_BURST_PER_SECOND: "100000", ...DATABASE_TIMEOUTS },
      identity: DATABASE_TIMEOUTS,
      // A short bus timeout, so a request lost with a killed service (or a stalled database) answers in seconds.
      gateway: { BUS_TIMEOUT_MS },
    },
    payments: () => ({ PAY_TO_BASE: payTo, BASE_RPC_URL: faults.chain!.rpcUrl, BASE_FACILITATOR_KEY: faults.chain!.accounts[0] as Hex, ...DATABASE_TIMEOUTS }),
  });
  ({ chain, pgProxy, directDb } = faults as { chain: EvmChain; pgProxy: TcpProxy; directDb: pg.Client });
}, 60_000);

afterAll(() => faults.stop({ report: () => console.info(`faults-database figures: ${JSON.stringify(figures)}`) }), 60_000);

interface Answer {
  status: number | "hang" | "network";
  ms: number;
  body: string;
  retryAfter: string | null;
}

async function get(route: string, headers: Record<string, string> = {}): Promise<Answer> {
  const t = performance.now();
  try {
    const res = await fetch(`${stack.base}${route}`, { headers, signal: AbortSignal.timeout(HANG_MS) });
    const body = await res.text();
    return { status: res.status, ms: Math.round(performance.now() - t), body, retryAfter: res.headers.get("retry-after") };
  } catch (err) {
    return { status: (err as Error).name === "TimeoutError" ? "hang" : "network", ms: Math.round(performance.now() - t), body: String(err), retryAfter: null };
  }
}

/**
 * Freezes Postgres as soon as a service sends `statement`, runs `read` meanwhile, and restores
 * the network afterwards whatever happened. The answer must be the service's own 503 (its
 * database bound ended the call), within the gateway's bus timeout: never the gateway's 504.
 */
async function frozenOn(statement: string, read: () => Promise<Answer>): Promise<Answer> {
  const frozen = pgProxy.freezeOn(statement);
  let froze = false;
  void frozen.then(() => (froze = true));
  let a: Answer;
  try {
    a = await read();
  } finally {
    pgProxy.restore();
  }
  expect(froze, `the proxy never saw ${statement}`).toBe(true);
  expect(a.status, a.body).toBe(503);
  expect(ErrorBody.parse(JSON.parse(a.body)).error).toMatchObject({ code: "service_unavailable", status: 503 });
  expect(Number(a.retryAfter)).toBeGreaterThan(0);
  // Ended by the read timeout (the server never answered), not by an error at once, and before the bus timeout.
  expect(a.ms).toBeGreaterThanOrEqual(QUERY_MS - 50);
  expect(a.ms).toBeLessThan(BUS_TIMEOUT_MS);
  return a;
}

/** Free-tier reads counted, every principal and day. */
const countedReads = async () => Number((await directDb.query<{ n: string }>("select coalesce(sum(used), 0) as n from metering.daily")).rows[0]?.n ?? 0);
const servedCount = async () => Number((await directDb.query<{ n: string }>("select coalesce(sum(count), 0) as n from metering.reads_served")).rows[0]?.n ?? 0);

describe("Postgres black-holed in the middle of a statement", () => {
  it("a free key's read, frozen while metering counts it: 503 service_unavailable within the bus timeout, nothing counted; the same key reads again once restored, its count right", async () => {
    const keyRes = await fetch(`${stack.base}/api/key`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "black-hole@example.com" }),
      signal: AbortSignal.timeout(HANG_MS),
    });
    expect(keyRes.status).toBe(201);
    const key = ((await keyRes.json()) as { key: string }).key;
    // Warm: the key's first read is counted, and metering holds a connection to freeze.
    const first = await get("/api/board/regime", { "x-board-key": key });
    expect(first.status, first.body).toBe(200);
    expect((JSON.parse(first.body) as { tier: { used_today: number } }).tier.used_today).toBe(1);
    const counted = await countedReads();
    // The baseline once metering has folded every event so far (they arrive in batches): unchanged over 300 ms.
    const served = await settledCount(servedCount, { atLeast: 1, holdMs: 300, timeoutMs: 5_000 });

    // Metering's daily count: one statement counts the reads of a turn (its text travels with every execution).
    const a = await frozenOn("insert into metering.daily as d", () => get("/api/board/regime", { "x-board-key": key }));
    figures.free_key_read_frozen_ms = a.ms;
    // The frozen count never reached Postgres (metering reset that connection; the proxy drops what it held).
    expect(await countedReads()).toBe(counted);

    const t = performance.now();
    const again = await get("/api/board/regime", { "x-board-key": key });
    figures.free_key_read_after_restore_ms = Math.round(performance.now() - t);
    expect(again.status, again.body).toBe(200);
    expect((JSON.parse(again.body) as { tier: { used_today: number } }).tier.used_today).toBe(2);
    expect(await countedReads()).toBe(counted + 1);
    // Served reads: the two served, never the refused one.
    expect(await settledCount(servedCount, { atLeast: served + 1, holdMs: 300, timeoutMs: 5_000 })).toBe(served + 1);
  });

  it("a licensed read, frozen while identity looks its licence up: 503 service_unavailable within the bus timeout; served once restored", async () => {
    const licence = (await request(stack.nc, identityLicenseIssue, { kind: "scanner", holder: "black-hole reader", period: "monthly" }, { timeoutMs: 5_000 })) as { key: string };
    const a = await frozenOn('"identity"."licenses"', () => get("/api/board/regime", { "x-license-key": licence.key }));
    figures.licensed_read_frozen_ms = a.ms;
    const again = await get("/api/board/regime", { "x-license-key": licence.key });
    expect(again.status, again.body).toBe(200);
  });

  it("a paid read, frozen while payments claims the payment: 503 service_unavailable within the bus timeout, nothing claimed, nothing sent to the chain; once restored the same payment buys its read, charged once", async () => {
    const p = await signedPayment("/api/board/indices");
    const balance = await chain.balanceOf(payTo);
    const nonce = await facilitatorNonce();
    const a = await frozenOn("insert into payments.claims as c", () => get(p.path, { "payment-signature": p.header }));
    figures.paid_read_frozen_ms = a.ms;
    // The claim's insert was held and dropped with its connection: no claim exists, open or otherwise.
    expect(await claimsOf(p)).toEqual([]);
    expect(Number((await directDb.query<{ n: string }>("select count(*) as n from payments.claims where state = 'claimed'")).rows[0]?.n)).toBe(0);
    // Nothing settled: no transfer of this authorization, no transaction of the facilitator, no money moved.
    expect(await transfersOf(p)).toEqual([]);
    expect(await facilitatorNonce()).toBe(nonce);
    expect(await chain.balanceOf(payTo)).toBe(balance);

    const t = performance.now();
    const again = await get(p.path, { "payment-signature": p.header });
    figures.paid_read_after_restore_ms = Math.round(performance.now() - t);
    expect(again.status, again.body).toBe(200);
    expect((await claimsOf(p)).map((c) => c.state)).toEqual(["settled"]);
    expect(await transfersOf(p)).toHaveLength(1);
    expect(await chain.balanceOf(payTo)).toBe(balance + p.price);
  });

  it("no service met an error it did not handle (each would have stopped a real process)", () => {
    expect(uncaught).toEqual([]);
  });
});

// ---------------------------------------------------------------- payments

interface Payment {
  header: string;
  from: Address;
  nonce: Hex;
  path: string;
  price: bigint;
}

const reader = () => createPublicClient({ chain: chain.chain, transport: viemHttp(chain.rpcUrl) });
const facilitatorNonce = () => reader().getTransactionCount({ address: privateKeyToAccount(chain.accounts[0] as Hex).address });

/** A fresh payer funded with exactly the price, and its payment signed by @x402/evm's client from the route's 402. */
async function signedPayment(route: string): Promise<Payment> {
  const account = privateKeyToAccount(generatePrivateKey());
  const price = ROUTE_BY_PATH.get(route)!.price!;
  await chain.mint(account.address, price);
  const res = await fetch(`${stack.base}${route}`, { signal: AbortSignal.timeout(HANG_MS) });
  expect(res.status).toBe(402);
  const pr = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
  pr.accepts = pr.accepts.slice(0, 1);
  const payload = await new x402Client().register("eip155:*", new ExactEvmScheme(account)).createPaymentPayload(pr);
  const { nonce } = (payload.payload as { authorization: { nonce: Hex } }).authorization;
  return { header: encodePaymentSignatureHeader(payload), from: account.address, nonce, path: route, price };
}

function transfersOf(p: Payment) {
  return reader().getLogs({ address: chain.usdc, event: authorizationUsed, args: { authorizer: p.from, nonce: p.nonce }, fromBlock: 0n });
}

async function claimsOf(p: Payment): Promise<{ state: string }[]> {
  return (await directDb.query<{ state: string }>("select state from payments.claims where lower(payer) = $1", [p.from.toLowerCase()])).rows;
}
