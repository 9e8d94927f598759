import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type net from "node:net";
import { fileURLToPath } from "node:url";
import { DidDocument, ErrorBody, pingEndpoint, RegimeView, ROUTE_BY_PATH } from "@board/proto";
import { request } from "@board/service-kit";
import { killHard } from "@board/service-kit/testing";
import type { EvmChain } from "@board/test-chains/evm";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import type pg from "pg";
import { concat, createPublicClient, createWalletClient, http as viemHttp, pad, parseAbiItem, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wrapFetchWithPayment as wrapFetchV1 } from "x402-fetch";
import type { TcpProxy } from "./fault-proxy.js";
import { bounded, FaultStack } from "./fault-stack.js";
import { executeElsewhere, expectRedelivered, refusal, Stack, until } from "./harness.js";
import { verifyReceiptSignatureJWS, type JWSSignedReceipt } from "@x402/extensions/offer-receipt";

// Faults of the paid read (claim in Postgres -> board read -> settlement on chain -> serve),
// on a stack of this file's own: its own nats-server (never the shared test bus), Postgres
// reached through a TCP proxy this file can cut, and the local EVM chain reached through a
// JSON-RPC proxy this file can make hold or fail calls.
// 1. Postgres cut off (connections reset, then new ones refused or held): nothing is charged,
//    nothing hangs, free reads go on, the payments refused meanwhile buy their reads after
//    recovery, and a transaction open at the cut does not throw an uncaught error (which
//    would stop a real service process).
// 2. The payments service (a real process) SIGKILLed between claim and settlement, once with
//    its settlement mined and once before broadcasting it: reconciled at the next start.
// 3. A settlement mined whose receipt cannot be read (v2, and v1 through x402's facilitator),
//    and one still in the mempool when reconciliation runs: charged at most once, and the
//    ledger ends saying so.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The gateway's bus timeout here: a claim may take 3x this, a settlement 10x (access/purchase.ts). */
const BUS_TIMEOUT_MS = 600;
const CLAIM_TIMEOUT_MS = 3 * BUS_TIMEOUT_MS;
const SETTLE_TIMEOUT_MS = 10 * BUS_TIMEOUT_MS;
/** A fetch still open after this is a hang: the test fails. */
const HANG_MS = 12_000;
/** The restarted payments instance reconciles claims open this long (at start and on this period). */
const RECONCILE_AFTER_SECONDS = 2;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const figures: Record<string, unknown> = {};

// ---------------------------------------------------------------- processes of this file

/** Payments processes of this file (killed first); the nats-server goes last, after the stack has left the bus. */
const children = new Set<ChildProcess>();


/** The payments service as a process of its own (so that it can be SIGKILLed), ready once it answers its ping. */
async function spawnPayments(env: Record<string, string>): Promise<ChildProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", "services/payments/src/main.ts"], {
    cwd: ROOT,
    env: { ...stack.busEnv("payments"), DATABASE_URL: stack.databaseUrl, HEALTH_PORT: "0", LOG_LEVEL: "error", PUBLIC_BASE_URL: stack.base, RECEIPT_SECRET: stack.receiptSecret, INSTANCE_ID: "payments-victim", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  await until(async () => {
    if (child.exitCode !== null) throw new Error(`payments exited: ${stderr}`);
    return request(stack.nc, pingEndpoint("payments"), {}, { timeoutMs: 500 }).then(
      (r) => r.instance === "payments-victim",
      () => false,
    );
  }, 30_000);
  figures.payments_process_start_ms = Math.round(performance.now() - started);
  return child;
}

// ---------------------------------------------------------------- the proxies

type Decision = "forward" | "hold" | "fail";
interface RpcCall {
  method: string;
  decision: Decision;
  at: number;
  response?: string;
}

/** A JSON-RPC proxy in front of the chain: each call is forwarded, held (never answered) or failed (HTTP 503), as `rule` says. */
class RpcProxy {
  rule: (method: string) => Decision = () => "forward";
  readonly calls: RpcCall[] = [];
  private readonly held = new Set<http.ServerResponse>();
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  url = "";
  constructor(private readonly target: string) {}

  async listen() {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}/`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString();
    let method = "?";
    try {
      const j = JSON.parse(body) as { method: string } | { method: string }[];
      method = Array.isArray(j) ? j.map((x) => x.method).join(",") : j.method;
    } catch {
      // Not JSON: forwarded as it is.
    }
    const decision = this.rule(method);
    const call: RpcCall = { method, decision, at: Date.now() };
    this.calls.push(call);
    if (decision === "hold") {
      this.held.add(res);
      res.once("close", () => this.held.delete(res));
      return;
    }
    if (decision === "fail") {
      res.writeHead(503).end();
      return;
    }
    try {
      const upstream = await fetch(this.target, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(HANG_MS) });
      const text = await upstream.text();
      call.response = text;
      res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
    } catch {
      res.destroy();
    }
  }

  /** Calls of `method` since `t` (ms epoch). */
  since(t: number, method: string, decision?: Decision) {
    return this.calls.filter((c) => c.at >= t && c.method === method && (decision === undefined || c.decision === decision));
  }

  /** Drops every held call: its connection is closed, nothing is forwarded. */
  release() {
    for (const r of this.held) r.destroy();
    this.held.clear();
  }

  async close() {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

// ---------------------------------------------------------------- the stack

const stack = new Stack();
/** The stack's own nats-server, Postgres behind a proxy, the chain (fault-stack.ts). */
const faults = new FaultStack(stack);
let chain: EvmChain;
let pgProxy: TcpProxy;
let rpc: RpcProxy;
/** The test's own connection to the same database, straight to Postgres (never through the proxy). */
let directDb: pg.Client;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
/**
 * Runtime code of an ERC-1271 wallet that accepts any signature: every call returns
 * isValidSignature's magic value (0x1626ba7e), padded to a word.
 */
const ACCEPT_ALL_WALLET: Hex = "0x631626ba7e60e01b60005260206000f3";
const authorizationUsed = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");
/** Errors nobody handled while this file ran (a service's, in this process): each one would have stopped a real process. */
const uncaught = faults.uncaught;

beforeAll(async () => {
  await faults.start({
    accounts: 2,
    onChain: async (started) => {
      chain = started;
      rpc = new RpcProxy(chain.rpcUrl);
      await rpc.listen();
    },
    // A short bus timeout, so a request lost with a killed service (or a stalled database) answers in seconds.
    stack: { gateway: { BUS_TIMEOUT_MS } },
    payments: () => paymentsEnv(),
  });
  ({ pgProxy, directDb } = faults as { pgProxy: TcpProxy; directDb: pg.Client });
}, 60_000);

afterAll(
  () =>
    faults.stop({
      // Whatever a failed test left behind: the faults undone first, so every service stops cleanly.
      async beforeStack() {
        if (rpc) {
          rpc.rule = () => "forward";
          rpc.release();
        }
        if (chain) await bounded(chainRpc("evm_setAutomine", [true]), 5_000);
        await Promise.all([...children].map((c) => killHard(c)));
      },
      afterNats: async () => void (await rpc?.close()),
      report: () => console.info(`faults-payments figures: ${JSON.stringify(figures)}`),
    }),
  60_000,
);

const paymentsEnv = (extra: Record<string, string> = {}) => ({
  PAY_TO_BASE: payTo,
  BASE_RPC_URL: rpc.url,
  BASE_FACILITATOR_KEY: chain.accounts[0] as Hex,
  ...extra,
});
const facilitator = () => privateKeyToAccount(chain.accounts[0] as Hex).address;
const reader = () => createPublicClient({ chain: chain.chain, transport: viemHttp(chain.rpcUrl) });
const chainRpc = (method: string, params: unknown[]) => reader().request({ method: method as never, params: params as never });

// ---------------------------------------------------------------- payments and what became of them

interface Payment {
  header: string;
  from: Address;
  nonce: Hex;
  path: string;
  price: bigint;
}

/** A fresh payer funded with exactly the price (or `funds`), and its payment signed by @x402/evm's client from the route's 402. */
async function signedPayment(route: string, funds?: bigint): Promise<Payment> {
  const account = privateKeyToAccount(generatePrivateKey());
  const price = ROUTE_BY_PATH.get(route)!.price!;
  if ((funds ?? price) > 0n) await chain.mint(account.address, funds ?? price);
  const res = await fetch(`${stack.base}${route}`, { signal: AbortSignal.timeout(HANG_MS) });
  expect(res.status).toBe(402);
  const pr = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
  pr.accepts = pr.accepts.slice(0, 1);
  const payload = await new x402Client().register("eip155:*", new ExactEvmScheme(account)).createPaymentPayload(pr);
  const { nonce } = (payload.payload as { authorization: { nonce: Hex } }).authorization;
  return { header: encodePaymentSignatureHeader(payload), from: account.address, nonce, path: route, price };
}

/** The chain's record of the payment's authorization being executed (EIP-3009 AuthorizationUsed logs). */
function transfersOf(p: Payment) {
  return reader().getLogs({ address: chain.usdc, event: authorizationUsed, args: { authorizer: p.from, nonce: p.nonce }, fromBlock: 0n });
}

interface ClaimRow {
  id: string;
  state: string;
  payer: string;
  transaction: string | null;
}

/** The payments ledger's rows for these payments, read straight from Postgres. */
async function claimsOf(...payments: Payment[]): Promise<ClaimRow[]> {
  const r = await directDb.query<ClaimRow>("select id, state, payer, transaction from payments.claims where lower(payer) = any($1) order by claimed_at", [
    payments.map((p) => p.from.toLowerCase()),
  ]);
  return r.rows;
}

async function claimOf(p: Payment): Promise<ClaimRow | null> {
  return (await claimsOf(p))[0] ?? null;
}

/** Waits until every claim is older than `seconds` (Postgres' clock, as reconciliation's horizon uses). */
async function untilOlderThan(ids: string[], seconds: number) {
  await until(async () => {
    const r = await directDb.query<{ ok: boolean }>("select bool_and(claimed_at < now() - make_interval(secs => $2)) as ok from payments.claims where id = any($1::uuid[])", [ids, seconds]);
    return r.rows[0]?.ok === true;
  }, 10_000);
}

interface Answer {
  status: number | "hang" | "network";
  ms: number;
  body: string;
  retryAfter: string | null;
}

async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const t = performance.now();
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(HANG_MS) });
    const body = await res.text();
    return { status: res.status, ms: Math.round(performance.now() - t), body, retryAfter: res.headers.get("retry-after") };
  } catch (err) {
    return { status: (err as Error).name === "TimeoutError" ? "hang" : "network", ms: Math.round(performance.now() - t), body: String(err), retryAfter: null };
  }
}

const paidGet = (p: Payment) => get(`${stack.base}${p.path}`, { "payment-signature": p.header });

/** Fetches with the payment once more, for the replay checks (a Response, for `refusal`). */
const replay = (p: Payment) => fetch(`${stack.base}${p.path}`, { headers: { "payment-signature": p.header }, signal: AbortSignal.timeout(HANG_MS) });

/** An error answer in the API's one error body, with its status, code and Retry-After; the code documented for the route at that status in /openapi.json. */
async function expectDocumentedError(a: Answer, status: number, code: string, route: string) {
  expect(a.status, a.body).toBe(status);
  const body = ErrorBody.parse(JSON.parse(a.body));
  expect(body.error).toMatchObject({ code, status });
  expect(Number(a.retryAfter)).toBeGreaterThan(0);
  const doc = (await (await fetch(`${stack.base}/openapi.json`, { signal: AbortSignal.timeout(HANG_MS) })).json()) as {
    paths: Record<string, { get: { responses: Record<string, { description: string }> } }>;
  };
  expect(doc.paths[route]?.get.responses[String(status)]?.description).toContain(code);
}

async function facilitatorNonce(): Promise<number> {
  return reader().getTransactionCount({ address: facilitator() });
}

// ---------------------------------------------------------------- 1. Postgres cut off

describe("Postgres cut off behind a TCP proxy", () => {
  let refusedDuringCut: Payment[] = [];
  let freeKey = "";

  it("a transaction open when its connection is lost fails on its own: no uncaught error (it would stop the service), and the service recovers", async () => {
    const count = async () =>
      Number((await directDb.query<{ n: string }>("select coalesce(sum(count), 0) as n from metering.reads_served where route = '/api/board/free'")).rows[0]?.n ?? 0);
    // Metering counts served reads, and is caught up.
    const before = await count();
    expect((await get(`${stack.base}/api/board/free`)).status).toBe(200);
    await until(async () => (await count()) === before + 1, 5_000);
    // It counts them in a transaction that locks its stream position: hold that row, so that
    // its next count waits inside an open transaction when the connection is cut.
    await directDb.query("begin");
    await directDb.query("select * from metering.consumer_position for update");
    let seen = uncaught.length;
    try {
      expect((await get(`${stack.base}/api/board/free`)).status).toBe(200);
      await until(async () => {
        const r = await directDb.query<{ n: string }>("select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
        return Number(r.rows[0]?.n) > 0;
      }, 5_000);
      seen = uncaught.length;
      expect(pgProxy.cut("refuse")).toBeGreaterThan(0);
      await sleep(300);
    } finally {
      pgProxy.restore();
      await directDb.query("rollback");
    }
    expect(uncaught.slice(seen)).toEqual([]);
    // The count is retried after the cut and lands, once.
    await until(async () => (await count()) === before + 2, 10_000);
  });

  it("connections reset, new ones refused: paid reads are refused at once (503 service_unavailable), nothing is claimed or charged; free reads are still served", async () => {
    // Warm: a paid read through the proxy, so the services hold open connections to cut.
    expect((await paidGet(await signedPayment("/api/board/regime"))).status).toBe(200);
    const keyRes = await fetch(`${stack.base}/api/key`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "cut-off@example.com" }),
      signal: AbortSignal.timeout(HANG_MS),
    });
    expect(keyRes.status).toBe(201);
    freeKey = ((await keyRes.json()) as { key: string }).key;
    refusedDuringCut = [await signedPayment("/api/board/regime"), await signedPayment("/api/board/indices"), await signedPayment("/api/board/movers")];
    const balance = await chain.balanceOf(payTo);
    const nonce = await facilitatorNonce();
    const t = Date.now();

    const reset = pgProxy.cut("refuse");
    expect(reset).toBeGreaterThan(0);
    figures.pg_connections_reset = reset;
    const answers = await Promise.all(refusedDuringCut.map(paidGet));
    figures.cut_paid_read_ms = answers.map((a) => a.ms);
    // Payments finds its database away: 503 service_unavailable on the bus, which the gateway
    // passes on as 503 with Retry-After: retry later, nothing was done.
    for (const [i, a] of answers.entries()) {
      await expectDocumentedError(a, 503, "service_unavailable", refusedDuringCut[i]!.path);
      expect(a.ms).toBeLessThan(CLAIM_TIMEOUT_MS);
    }
    // The services really tried Postgres and were refused.
    expect(pgProxy.refused).toBeGreaterThan(0);
    figures.pg_connections_refused = pgProxy.refused;

    // Free reads come from the board's memory: still served.
    const free = await get(`${stack.base}/api/board/free`);
    expect(free.status).toBe(200);
    // A free key's read needs identity and metering, both on Postgres: refused (retry later), never served uncounted.
    await expectDocumentedError(await get(`${stack.base}/api/board/regime`, { "x-board-key": freeKey }), 503, "service_unavailable", "/api/board/regime");

    // Nothing charged, no settlement sent, nothing claimed.
    expect(await chain.balanceOf(payTo)).toBe(balance);
    expect(await facilitatorNonce()).toBe(nonce);
    expect(rpc.since(t, "eth_sendRawTransaction")).toEqual([]);
    for (const p of refusedDuringCut) expect(await transfersOf(p)).toEqual([]);
    expect(await claimsOf(...refusedDuringCut)).toEqual([]);
  });

  it("restored: paid reads work again at once; the payments refused during the cut were never claimed, so each buys its read, charged once", async () => {
    const balance = await chain.balanceOf(payTo);
    pgProxy.restore();
    const restoredAt = performance.now();
    const first = await paidGet(refusedDuringCut[0]!);
    figures.first_paid_read_after_restore_ms = Math.round(performance.now() - restoredAt);
    expect(first.status, first.body).toBe(200);
    expect(performance.now() - restoredAt).toBeLessThan(5_000);
    for (const p of refusedDuringCut.slice(1)) expect((await paidGet(p)).status).toBe(200);
    const total = refusedDuringCut.reduce((s, p) => s + p.price, 0n);
    expect(await chain.balanceOf(payTo)).toBe(balance + total);
    for (const p of refusedDuringCut) expect(await transfersOf(p)).toHaveLength(1);
    expect((await claimsOf(...refusedDuringCut)).map((c) => c.state)).toEqual(["settled", "settled", "settled"]);
    // Each bought one read: sent again, it is delivered again and charges nothing.
    await expectRedelivered(await replay(refusedDuringCut[0]!), 1);
    expect(await chain.balanceOf(payTo)).toBe(balance + total);
    // The free key's read refused during the cut was not counted: this is its first.
    const read = await get(`${stack.base}/api/board/regime`, { "x-board-key": freeKey });
    expect(read.status).toBe(200);
    expect((JSON.parse(read.body) as { tier: { used_today: number } }).tier.used_today).toBe(1);
  });

  it("new connections held (a black hole): a paid read answers 504 upstream_timeout within the claim's bus timeout, nothing charged; served again once restored", async () => {
    const p = await signedPayment("/api/board/regime");
    const balance = await chain.balanceOf(payTo);
    const t = Date.now();
    pgProxy.cut("hold");
    try {
      const a = await paidGet(p);
      figures.blackhole_paid_read_ms = a.ms;
      await expectDocumentedError(a, 504, "upstream_timeout", "/api/board/regime");
      expect(a.ms).toBeLessThan(CLAIM_TIMEOUT_MS + 1_500);
      expect(pgProxy.heldCount).toBeGreaterThan(0);
      expect(rpc.since(t, "eth_sendRawTransaction")).toEqual([]);
      expect(await chain.balanceOf(payTo)).toBe(balance);
    } finally {
      pgProxy.restore();
    }
    // The claim never reached Postgres (payments' connection attempt was held, then reset): the payment buys its read, once.
    await until(async () => (await paidGet(p)).status === 200, 8_000);
    expect(await chain.balanceOf(payTo)).toBe(balance + p.price);
    expect((await claimsOf(p)).map((c) => c.state)).toEqual(["settled"]);
  });
});

// ---------------------------------------------------------------- 2. payments killed mid-purchase

describe("the payments process SIGKILLed between claim and settlement", () => {
  let mined: Payment;
  let stranded: Payment;

  it("a settlement mined and one never broadcast when it dies: no 200, and the next instance reconciles both at start (settled once; released)", async () => {
    await stack.stopPayments();
    // RECONCILE_AFTER_SECONDS at its default: the victim reconciles nothing of this test itself.
    const victim = await spawnPayments(paymentsEnv());
    mined = await signedPayment("/api/board/regime");
    stranded = await signedPayment("/api/board/indices");
    const balance = await chain.balanceOf(payTo);
    const nonce = await facilitatorNonce();
    const t = Date.now();

    // The first settlement is broadcast (and mined: automine) but its receipt never comes back;
    // the second broadcast is held, so it never reaches the chain.
    let sends = 0;
    rpc.rule = (m) => (m === "eth_sendRawTransaction" ? (++sends === 1 ? "forward" : "hold") : m === "eth_getTransactionReceipt" ? "hold" : "forward");
    const first = paidGet(mined);
    await until(async () => (await transfersOf(mined)).length === 1, 8_000);
    const second = paidGet(stranded);
    await until(() => sends === 2, 8_000);
    const open = await claimsOf(mined, stranded);
    expect(open.map((c) => c.state)).toEqual(["claimed", "claimed"]);

    await killHard(victim);
    expect(victim.signalCode).toBe("SIGKILL");
    rpc.rule = () => "forward";
    rpc.release();
    const [tx] = await transfersOf(mined);
    const broadcast = rpc.since(t, "eth_sendRawTransaction", "forward");
    expect(broadcast).toHaveLength(1);
    expect((JSON.parse(broadcast[0]!.response!) as { result?: string }).result, broadcast[0]!.response).toBe(tx!.transactionHash);

    // The clients: never a 200 (an unpaid read never served); the gateway's settle request is lost with the process.
    const [a1, a2] = await Promise.all([first, second]);
    figures.killed_mid_settlement_answers = [a1, a2].map((a) => ({ status: a.status, ms: a.ms }));
    for (const a of [a1, a2]) {
      await expectDocumentedError(a, 504, "upstream_timeout", a === a1 ? mined.path : stranded.path);
      expect(a.ms).toBeLessThan(CLAIM_TIMEOUT_MS + BUS_TIMEOUT_MS + SETTLE_TIMEOUT_MS + 1_500);
    }

    // A new instance on the same database, once the claims are past its horizon: reconciled as it starts.
    await untilOlderThan(
      open.map((c) => c.id),
      RECONCILE_AFTER_SECONDS + 0.2,
    );
    const started = performance.now();
    await stack.startPayments(paymentsEnv({ RECONCILE_AFTER_SECONDS: String(RECONCILE_AFTER_SECONDS) }));
    figures.restart_with_reconciliation_ms = Math.round(performance.now() - started);
    const [m, s] = await claimsOf(mined, stranded);
    expect(m).toMatchObject({ state: "settled", transaction: tx!.transactionHash });
    expect(s).toMatchObject({ state: "released", transaction: null });

    // On chain: the mined authorization executed once, the stranded one never; one settlement transaction in all.
    expect(await transfersOf(mined)).toHaveLength(1);
    expect(await transfersOf(stranded)).toEqual([]);
    expect(await chain.balanceOf(payTo)).toBe(balance + mined.price);
    expect(await facilitatorNonce()).toBe(nonce + 1);
  });

  it("afterwards: the payment mined while its read died is served the read it bought when sent again, charged nothing more; the released one buys its read, charged once", async () => {
    const balance = await chain.balanceOf(payTo);
    const [tx] = await transfersOf(mined);
    const again = await replay(mined);
    expect(again.status).toBe(200);
    expect(again.headers.get("payment-redelivery")).toBe("1");
    const settlement = decodePaymentResponseHeader(again.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, transaction: tx!.transactionHash });
    RegimeView.parse(await again.json());
    // No receipt was made when it died: the first redelivery makes the signed receipt, and keeps it for the next.
    const receipt = (settlement.extensions?.["offer-receipt"] as { info: { receipt: JWSSignedReceipt } } | undefined)?.info.receipt;
    if (!receipt) throw new Error("the redelivery carries no signed receipt");
    const kid = (JSON.parse(Buffer.from(receipt.signature.split(".")[0]!, "base64url").toString()) as { kid: string }).kid;
    const did = DidDocument.parse(await (await fetch(`${stack.base}/.well-known/did.json`)).json());
    const key = did.verificationMethod.find((m) => m.id === kid)?.publicKeyJwk;
    expect(await verifyReceiptSignatureJWS(receipt, key)).toMatchObject({ transaction: tx!.transactionHash, amount: mined.price.toString() });
    const third = await replay(mined);
    expect(third.headers.get("payment-response")).toBe(again.headers.get("payment-response"));
    await third.arrayBuffer();
    expect(await chain.balanceOf(payTo)).toBe(balance);
    const read = await paidGet(stranded);
    expect(read.status, read.body).toBe(200);
    await expectRedelivered(await replay(stranded), 1);
    expect(await chain.balanceOf(payTo)).toBe(balance + stranded.price);
    expect(await transfersOf(stranded)).toHaveLength(1);
    expect((await claimsOf(mined, stranded)).map((c) => c.state)).toEqual(["settled", "settled"]);
  });
});

// ---------------------------------------------------------------- 3. settlement outcome unknown

describe("a settlement whose outcome payments cannot read", () => {
  it("mined, but every receipt lookup fails: nothing served, the claim stays open (not failed) and is reconciled as settled, once", async () => {
    const p = await signedPayment("/api/board/movers");
    const balance = await chain.balanceOf(payTo);
    const t = Date.now();
    rpc.rule = (m) => (m === "eth_getTransactionReceipt" ? "fail" : "forward");
    let a: Answer;
    try {
      a = await paidGet(p);
    } finally {
      rpc.rule = () => "forward";
    }
    expect(rpc.since(t, "eth_getTransactionReceipt", "fail").length).toBeGreaterThan(0);
    expect(a.status, a.body).not.toBe(200);
    // The money moved nevertheless.
    const [tx] = await transfersOf(p);
    expect(tx).toBeTruthy();
    expect(await chain.balanceOf(payTo)).toBe(balance + p.price);
    // The ledger must not close the claim as failed: it is open, for reconciliation to read the chain.
    const claim = await claimOf(p);
    expect(claim?.state).toBe("claimed");
    await until(async () => (await claimOf(p))?.state === "settled", 10_000);
    expect(await claimOf(p)).toMatchObject({ transaction: tx!.transactionHash });
    // Its read was never served: sent again, the payment gets it, charged once.
    await expectRedelivered(await replay(p), 1);
    expect(await chain.balanceOf(payTo)).toBe(balance + p.price);
    expect(await transfersOf(p)).toHaveLength(1);
  });

  it("v1 (x402-fetch 1.x) from a contract wallet, settled by x402's facilitator, mined but every receipt lookup fails: nothing served, the claim stays open (not failed) and is reconciled as settled, once", async () => {
    // A contract wallet's signature cannot be checked locally: x402's v1 exact scheme
    // verifies and settles it (not a batch), the path whose receipt failure comes back as an
    // error message with no transaction.
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    await chainRpc("hardhat_setCode", [wallet, ACCEPT_ALL_WALLET]);
    const path = "/api/board/indices";
    const price = ROUTE_BY_PATH.get(path)!.price!;
    await chain.mint(wallet, price);
    let header = "";
    const recording = (input: string | URL | Request, init?: RequestInit) => {
      header = new Headers(init?.headers).get("x-payment") ?? header;
      return fetch(input, { ...init, signal: AbortSignal.timeout(HANG_MS) });
    };
    // Its owner's ECDSA signature with the wallet's own data after it (as smart wallets sign):
    // not 65 bytes, so not refused for failing to recover to the wallet's address locally; only
    // the chain (ERC-1271) can say, and the facilitator asks it.
    const signTypedData = (async (args: Parameters<typeof owner.signTypedData>[0]) => concat([await owner.signTypedData(args), pad("0x01", { size: 32 })])) as typeof owner.signTypedData;
    const client = createWalletClient({ account: { ...owner, address: wallet, signTypedData }, chain: chain.chain, transport: viemHttp(chain.rpcUrl) });
    const balance = await chain.balanceOf(payTo);
    const t = Date.now();
    rpc.rule = (m) => (m === "eth_getTransactionReceipt" ? "fail" : "forward");
    let res: Response;
    try {
      res = await wrapFetchV1(recording as typeof fetch, client as never)(`${stack.base}${path}`);
    } finally {
      rpc.rule = () => "forward";
    }
    expect(rpc.since(t, "eth_getTransactionReceipt", "fail").length).toBeGreaterThan(0);
    expect(await refusal(res)).toBe("payment_settlement_failed");
    const sent = JSON.parse(Buffer.from(header, "base64").toString()) as { x402Version: number; payload: { authorization: { nonce: Hex } } };
    expect(sent.x402Version).toBe(1);
    const p: Payment = { header, from: wallet, nonce: sent.payload.authorization.nonce, path, price };
    // The money moved nevertheless, in a transaction of x402's facilitator (the claim was not batched).
    const [tx] = await transfersOf(p);
    expect(tx).toBeTruthy();
    expect(await chain.balanceOf(payTo)).toBe(balance + price);
    const stored = await directDb.query<{ version: number; batched: boolean }>("select (payment->>'version')::int as version, payment ? 'batched' as batched from payments.claims where lower(payer) = $1", [
      wallet.toLowerCase(),
    ]);
    expect(stored.rows).toEqual([{ version: 1, batched: false }]);
    // Not closed as failed: open, for reconciliation to read the authorization on chain.
    expect((await claimOf(p))?.state).toBe("claimed");
    await until(async () => (await claimOf(p))?.state === "settled", 10_000);
    expect(await claimOf(p)).toMatchObject({ transaction: tx!.transactionHash });
    // Its read was never served: sent again (X-PAYMENT, as x402-fetch sends it), the payment gets it, charged once.
    await expectRedelivered(await fetch(`${stack.base}${path}`, { headers: { "x-payment": header }, signal: AbortSignal.timeout(HANG_MS) }), 1);
    expect(await chain.balanceOf(payTo)).toBe(balance + price);
    expect(await transfersOf(p)).toHaveLength(1);
  });

  it("broadcast but still in the mempool when reconciliation runs: the claim stays open until it is mined, then settled once", async () => {
    const p = await signedPayment("/api/board/regime");
    const balance = await chain.balanceOf(payTo);
    await chainRpc("evm_setAutomine", [false]);
    rpc.rule = (m) => (m === "eth_getTransactionReceipt" ? "fail" : "forward");
    try {
      const a = await paidGet(p);
      expect(a.status, a.body).not.toBe(200);
      rpc.rule = () => "forward";
      // Sent, not mined: our account has a transaction pending, the authorization is unused.
      const account = facilitator();
      expect(await reader().getTransactionCount({ address: account, blockTag: "pending" })).toBe((await reader().getTransactionCount({ address: account })) + 1);
      expect(await transfersOf(p)).toEqual([]);
      const claim = await claimOf(p);
      expect(claim?.state).toBe("claimed");
      // Past the horizon, reconciliation runs while the transaction can still land: it must not release the claim.
      await untilOlderThan([claim!.id], RECONCILE_AFTER_SECONDS + 0.2);
      const pass = await stack.payments!.reconcile();
      expect(pass.open).toBeGreaterThan(0);
      expect((await claimOf(p))?.state).toBe("claimed");
      // Nor may the payment buy a read meanwhile.
      expect(await refusal(await replay(p))).toBe("payment_already_used");
      await chainRpc("evm_mine", []);
    } finally {
      rpc.rule = () => "forward";
      await chainRpc("evm_setAutomine", [true]);
    }
    await until(async () => (await claimOf(p))?.state === "settled", 10_000);
    const [tx] = await transfersOf(p);
    expect(await claimOf(p)).toMatchObject({ transaction: tx!.transactionHash });
    expect(await transfersOf(p)).toHaveLength(1);
    expect(await chain.balanceOf(payTo)).toBe(balance + p.price);
    await expectRedelivered(await replay(p), 1);
    expect(await chain.balanceOf(payTo)).toBe(balance + p.price);
  });
});

// ---------------------------------------------------------------- 4. batched settlement

/** Payments (in this process) whose batches close at `max` payments or after `windowMs`. */
async function batchingPayments(max: number, windowMs: number, extra: Record<string, string> = {}) {
  await stack.stopPayments();
  await stack.startPayments(
    paymentsEnv({ SETTLEMENT_BATCH_MAX: String(max), SETTLEMENT_BATCH_WINDOW_MS: String(windowMs), RECONCILE_AFTER_SECONDS: String(RECONCILE_AFTER_SECONDS), ...extra }),
  );
}

describe("batched settlement (Multicall3 aggregate3 on Base)", () => {
  it("one batch of good payments with one payer short of funds and one authorization used on chain meanwhile: the good are served from one transaction, the bad refused, nothing charged twice", async () => {
    await batchingPayments(5, 2_000);
    const good = [await signedPayment("/api/board/regime"), await signedPayment("/api/board/indices"), await signedPayment("/api/board/movers")];
    // Verified without the chain, so claimed; the batch's simulation finds the balance short.
    const short = await signedPayment("/api/board/regime", 1_000n);
    const used = await signedPayment("/api/board/indices");
    await executeElsewhere(chain, chain.accounts[1] as Hex, used.header);
    const balance = await chain.balanceOf(payTo);
    const nonce = await facilitatorNonce();
    const t = Date.now();
    const answers = await Promise.all([...good, short, used].map((p) => paidGet(p)));
    for (const a of answers.slice(0, 3)) expect(a.status, a.body).toBe(200);
    expect(answers[3]!.status, answers[3]!.body).toBe(402);
    expect(JSON.parse(answers[3]!.body)).toMatchObject({ error: "payment_insufficient_funds" });
    expect(answers[4]!.status, answers[4]!.body).toBe(402);
    expect(JSON.parse(answers[4]!.body)).toMatchObject({ error: "payment_already_used" });
    // One settlement transaction carried the three.
    expect(rpc.since(t, "eth_sendRawTransaction", "forward")).toHaveLength(1);
    expect(await facilitatorNonce()).toBe(nonce + 1);
    const txs = await Promise.all(good.map(async (p) => (await transfersOf(p)).map((l) => l.transactionHash)));
    expect(new Set(txs.flat()).size).toBe(1);
    for (const hashes of txs) expect(hashes).toHaveLength(1);
    expect(await chain.balanceOf(payTo)).toBe(balance + good.reduce((s, p) => s + p.price, 0n));
    expect((await claimsOf(...good)).map((c) => c.state)).toEqual(["settled", "settled", "settled"]);
    expect(await claimOf(short)).toMatchObject({ state: "failed" });
    expect(await claimOf(used)).toMatchObject({ state: "failed" });
    expect(await transfersOf(short)).toEqual([]);
    expect(await chain.balanceOf(short.from)).toBe(1_000n);
    expect(await transfersOf(used)).toHaveLength(1);
    for (const p of good) await expectRedelivered(await replay(p), 1);
    expect(await chain.balanceOf(payTo)).toBe(balance + good.reduce((s, p) => s + p.price, 0n));
  });

  it("payments SIGKILLed with a batch sent and not yet mined: the next instance keeps its claims open while it may land, then settles each exactly once", async () => {
    await stack.stopPayments();
    // Reads that wait for their block (ANSWER_BEFORE_BLOCK_MAX_PRICE=0): none may be served before it lands.
    const victim = await spawnPayments(paymentsEnv({ SETTLEMENT_BATCH_MAX: "4", SETTLEMENT_BATCH_WINDOW_MS: "2000", ANSWER_BEFORE_BLOCK_MAX_PRICE: "0" }));
    const batch = [await signedPayment("/api/board/regime"), await signedPayment("/api/board/indices"), await signedPayment("/api/board/movers"), await signedPayment("/api/board/regime")];
    const balance = await chain.balanceOf(payTo);
    const nonce = await facilitatorNonce();
    const t = Date.now();
    await chainRpc("evm_setAutomine", [false]);
    try {
      const answers = Promise.all(batch.map((p) => paidGet(p)));
      await until(() => rpc.since(t, "eth_sendRawTransaction", "forward").length === 1, 8_000);
      expect((await claimsOf(...batch)).map((c) => c.state)).toEqual(["claimed", "claimed", "claimed", "claimed"]);
      await killHard(victim);
      for (const a of await answers) expect(a.status, a.body).not.toBe(200);
      // In the mempool: nothing moved yet.
      for (const p of batch) expect(await transfersOf(p)).toEqual([]);
      await untilOlderThan(
        (await claimsOf(...batch)).map((c) => c.id),
        RECONCILE_AFTER_SECONDS + 0.2,
      );
      await stack.startPayments(paymentsEnv({ RECONCILE_AFTER_SECONDS: String(RECONCILE_AFTER_SECONDS) }));
      // It may still land: reconciliation leaves every claim of the batch open, and none buys a read meanwhile.
      expect((await claimsOf(...batch)).map((c) => c.state)).toEqual(["claimed", "claimed", "claimed", "claimed"]);
      expect(await refusal(await replay(batch[0]!))).toBe("payment_already_used");
      await chainRpc("evm_mine", []);
    } finally {
      await chainRpc("evm_setAutomine", [true]);
    }
    await stack.payments!.reconcile();
    expect((await claimsOf(...batch)).map((c) => c.state)).toEqual(["settled", "settled", "settled", "settled"]);
    const txs = new Set<string>();
    for (const p of batch) {
      const logs = await transfersOf(p);
      expect(logs).toHaveLength(1);
      txs.add(logs[0]!.transactionHash);
    }
    expect(txs.size).toBe(1);
    expect(await facilitatorNonce()).toBe(nonce + 1);
    expect(await chain.balanceOf(payTo)).toBe(balance + batch.reduce((s, p) => s + p.price, 0n));
    for (const p of batch) await expectRedelivered(await replay(p), 1);
  });

  it("a batch never mined (dropped from the mempool): its reads are refused, its claims stay open while it may land, then are released and each payment buys its read once", async () => {
    // Reads that wait for their block (above ANSWER_BEFORE_BLOCK_MAX_PRICE, past a payer's cap, or
    // with it at 0, as here); a read answered before its block whose transaction is dropped is in
    // paid-reads-before-block.test.ts.
    await batchingPayments(3, 2_000, { SETTLEMENT_RECEIPT_TIMEOUT_MS: "800", SETTLEMENT_RECEIPT_POLL_MS: "50", ANSWER_BEFORE_BLOCK_MAX_PRICE: "0" });
    const batch = [await signedPayment("/api/board/regime"), await signedPayment("/api/board/indices"), await signedPayment("/api/board/movers")];
    const balance = await chain.balanceOf(payTo);
    const t = Date.now();
    await chainRpc("evm_setAutomine", [false]);
    try {
      const answers = await Promise.all(batch.map((p) => paidGet(p)));
      for (const a of answers) {
        expect(a.status, a.body).toBe(402);
        expect(JSON.parse(a.body)).toMatchObject({ error: "payment_settlement_failed" });
      }
      const sent = rpc.since(t, "eth_sendRawTransaction", "forward");
      expect(sent).toHaveLength(1);
      const hash = (JSON.parse(sent[0]!.response!) as { result: Hex }).result;
      await untilOlderThan(
        (await claimsOf(...batch)).map((c) => c.id),
        RECONCILE_AFTER_SECONDS + 0.2,
      );
      expect((await stack.payments!.reconcile()).open).toBeGreaterThanOrEqual(3);
      expect((await claimsOf(...batch)).map((c) => c.state)).toEqual(["claimed", "claimed", "claimed"]);
      // The node drops it: it can never land now (nor can its nonce be reused by it).
      await chainRpc("hardhat_dropTransaction", [hash]);
    } finally {
      await chainRpc("evm_setAutomine", [true]);
    }
    await stack.payments!.reconcile();
    expect((await claimsOf(...batch)).map((c) => c.state)).toEqual(["released", "released", "released"]);
    expect(await chain.balanceOf(payTo)).toBe(balance);
    const again = await Promise.all(batch.map((p) => paidGet(p)));
    for (const a of again) expect(a.status, a.body).toBe(200);
    for (const p of batch) expect(await transfersOf(p)).toHaveLength(1);
    expect(await chain.balanceOf(payTo)).toBe(balance + batch.reduce((s, p) => s + p.price, 0n));
  });

  it("the chain unreachable when a batch is simulated: refused 503 at once, nothing claimed stays open, and the same payments buy their reads once it answers", async () => {
    await batchingPayments(2, 2_000);
    const batch = [await signedPayment("/api/board/regime"), await signedPayment("/api/board/indices")];
    const balance = await chain.balanceOf(payTo);
    rpc.rule = (m) => (m === "eth_call" ? "fail" : "forward");
    let answers: Answer[];
    try {
      answers = await Promise.all(batch.map((p) => paidGet(p)));
    } finally {
      rpc.rule = () => "forward";
    }
    for (const [i, a] of answers.entries()) await expectDocumentedError(a, 503, "service_unavailable", batch[i]!.path);
    expect((await claimsOf(...batch)).map((c) => c.state)).toEqual(["released", "released"]);
    const again = await Promise.all(batch.map((p) => paidGet(p)));
    for (const a of again) expect(a.status, a.body).toBe(200);
    expect(await chain.balanceOf(payTo)).toBe(balance + batch.reduce((s, p) => s + p.price, 0n));
  });

  it("the chain unreachable between simulation and broadcast: nothing served, the claims stay open (the batch may have left), and reconciliation releases them once the chain shows it never landed", async () => {
    await batchingPayments(2, 2_000);
    const batch = [await signedPayment("/api/board/regime"), await signedPayment("/api/board/indices")];
    const balance = await chain.balanceOf(payTo);
    rpc.rule = (m) => (m === "eth_sendRawTransaction" ? "fail" : "forward");
    let answers: Answer[];
    try {
      answers = await Promise.all(batch.map((p) => paidGet(p)));
    } finally {
      rpc.rule = () => "forward";
    }
    for (const a of answers) {
      expect(a.status, a.body).toBe(402);
      expect(JSON.parse(a.body)).toMatchObject({ error: "payment_settlement_failed" });
    }
    expect((await claimsOf(...batch)).map((c) => c.state)).toEqual(["claimed", "claimed"]);
    await untilOlderThan(
      (await claimsOf(...batch)).map((c) => c.id),
      RECONCILE_AFTER_SECONDS + 0.2,
    );
    await stack.payments!.reconcile();
    expect((await claimsOf(...batch)).map((c) => c.state)).toEqual(["released", "released"]);
    for (const p of batch) expect(await transfersOf(p)).toEqual([]);
    const again = await Promise.all(batch.map((p) => paidGet(p)));
    for (const a of again) expect(a.status, a.body).toBe(200);
    expect(await chain.balanceOf(payTo)).toBe(balance + batch.reduce((s, p) => s + p.price, 0n));
  });
});
