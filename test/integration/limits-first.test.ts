import { randomBytes } from "node:crypto";
import http from "node:http";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { x402Client } from "@x402/core/client";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { DEFAULT_BURST, identityLicenseIssue, identityResolve, paymentsClaim, REFUSED_CREDENTIAL_SECONDS } from "@board/proto";
import { request } from "@board/service-kit";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import type { Subscription } from "nats";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack, until } from "./harness.js";

/**
 * Security review finding 3, "limits come after the expensive work": the client address's
 * burst comes before a credential is resolved or a payment claimed, refused credentials are
 * remembered briefly, the token endpoint and paid MCP calls are limited, a junk payment never
 * reaches the chain's RPC, and an IPv6 client counts as its /64. The gateway trusts one proxy
 * hop here, so each test speaks from its own addresses (X-Forwarded-For) and meets the
 * documented default burst alone.
 */
const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
/** JSON-RPC methods the Base node was asked, through the counting proxy in front of it. */
const rpcMethods: string[] = [];
let rpcProxy: http.Server;

/** A proxy in front of the local chain that records every JSON-RPC method it forwards. */
async function countingProxy(target: string): Promise<string> {
  rpcProxy = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    try {
      const parsed = JSON.parse(body.toString()) as { method?: string } | { method?: string }[];
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) rpcMethods.push(String(m.method));
    } catch {
      rpcMethods.push("(unreadable)");
    }
    const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
    res.writeHead(upstream.status, { "content-type": "application/json" }).end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((r) => rpcProxy.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(rpcProxy.address() as { port: number }).port}`;
}

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 2 });
  const rpcUrl = await countingProxy(chain.rpcUrl);
  await stack.start({
    metering: { ANON_BURST_CAPACITY: String(DEFAULT_BURST.anonymous.capacity), ANON_BURST_PER_SECOND: String(DEFAULT_BURST.anonymous.per_second) },
    gateway: { TRUST_PROXY_HOPS: 1 },
  });
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex, MPP_SECRET_KEY: randomBytes(32).toString("base64url") });
  await stack.untilServing();
  // The Base rail is offered once its node answered.
  await until(async () => ((await offers("/api/board/regime")).accepts ?? []).some((a) => a.network === "eip155:8453"), 20_000);
}, 90_000);

afterAll(async () => {
  await stack.stop();
  await chain?.stop();
  rpcProxy?.close();
});

let nextAddress = 1;
/** A fresh client address of its own (IPv4), so each test meets a full bucket. */
const freshAddress = () => `198.51.100.${nextAddress++}`;

const get = (path: string, headers: Record<string, string>) => fetch(`${stack.base}${path}`, { headers });

async function offers(path: string): Promise<PaymentRequired> {
  const res = await fetch(`${stack.base}${path}`, { headers: { "x-forwarded-for": "203.0.113.250" } });
  await res.body?.cancel();
  const header = res.headers.get("payment-required");
  return header ? decodePaymentRequiredHeader(header) : ({ accepts: [] } as unknown as PaymentRequired);
}

/** Counts the requests published to a bus subject (a plain subscription beside the service's queue group). */
function listen(subject: string): { count: () => number; sub: Subscription } {
  let n = 0;
  const sub = stack.nc.subscribe(subject, { callback: () => void n++ });
  return { count: () => n, sub };
}

const codeOf = async (res: Response) => ((await res.json()) as { error?: { code?: string } }).error?.code;

/** A Base payment for the regime read signed by a key that is not its `from`: junk that only the signature betrays. */
async function junkPayment(alter: (pr: PaymentRequired) => void = () => undefined): Promise<string> {
  const pr = await offers("/api/board/regime");
  pr.accepts = pr.accepts.filter((a) => a.network === "eip155:8453" && a.extra?.["name"] === "USD Coin");
  alter(pr);
  const client = x402Client.fromConfig({ schemes: [], spendControls: false }).register("eip155:*", new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())));
  const payload = await client.createPaymentPayload(pr);
  const authorization = (payload.payload as { authorization: { from: string } }).authorization;
  authorization.from = privateKeyToAccount(generatePrivateKey()).address;
  return encodePaymentSignatureHeader(payload);
}

describe("a: the client address's burst comes before credentials are resolved or payments claimed", () => {
  it("a flood of random keys from one address meets 429 burst_limited; identity is asked at most about what passed the burst", async () => {
    const resolves = listen(identityResolve.subject);
    const from = freshAddress();
    const n = DEFAULT_BURST.anonymous.capacity + 30;
    const answers = await Promise.all(Array.from({ length: n }, () => get("/api/board/regime", { "x-forwarded-for": from, "x-board-key": `sk_${randomBytes(16).toString("hex")}` })));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(await codeOf(limited[0]!)).toBe("burst_limited");
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    for (const r of answers) await r.body?.cancel().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    resolves.sub.unsubscribe();
    expect(resolves.count()).toBeLessThanOrEqual(n - limited.length);
  });

  it("a flood of junk payments from one address meets 429 before payments is asked to claim", async () => {
    const claims = listen(paymentsClaim.subject);
    const from = freshAddress();
    const payment = await junkPayment();
    const n = DEFAULT_BURST.anonymous.capacity + 30;
    const answers = await Promise.all(Array.from({ length: n }, () => get("/api/board/regime", { "x-forwarded-for": from, "payment-signature": payment })));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const r of answers) await r.body?.cancel().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    claims.sub.unsubscribe();
    expect(claims.count()).toBeLessThanOrEqual(n - limited.length);
  });

  it("another address's flood refuses none of a licensed client's reads", async () => {
    const { key } = await request(stack.nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "limits test" }, { timeoutMs: 5000 });
    const flooder = freshAddress();
    const reader = freshAddress();
    const flood = Promise.all(
      Array.from({ length: DEFAULT_BURST.anonymous.capacity + 30 }, () => get("/api/board/regime", { "x-forwarded-for": flooder, "x-board-key": `sk_${randomBytes(16).toString("hex")}` })),
    );
    const mine = await Promise.all(Array.from({ length: 5 }, () => get("/api/board/regime", { "x-forwarded-for": reader, "x-license-key": key })));
    expect(mine.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    for (const r of [...mine, ...(await flood)]) await r.body?.cancel().catch(() => undefined);
  });
});

describe("b: refused credentials are remembered briefly", () => {
  it(`an unknown key, licence or bearer refused once is refused again for ${REFUSED_CREDENTIAL_SECONDS} s without asking identity`, async () => {
    const from = freshAddress();
    const cases: [Record<string, string>, string, number][] = [
      [{ "x-board-key": `sk_${randomBytes(16).toString("hex")}` }, "key_unknown", 403],
      [{ "x-license-key": `lk_${randomBytes(16).toString("hex")}` }, "license_unknown", 403],
      [{ authorization: `Bearer ${randomBytes(24).toString("base64url")}.${randomBytes(24).toString("base64url")}.${randomBytes(24).toString("base64url")}` }, "token_invalid", 401],
    ];
    for (const [headers, code, status] of cases) {
      const resolves = listen(identityResolve.subject);
      for (let i = 0; i < 3; i++) {
        const res = await get("/api/board/regime", { "x-forwarded-for": from, ...headers });
        expect(res.status, code).toBe(status);
        expect(await codeOf(res)).toBe(code);
      }
      await new Promise((r) => setTimeout(r, 100));
      resolves.sub.unsubscribe();
      expect(resolves.count(), code).toBe(1);
    }
  });
});

describe("c: /oauth/token is limited per client address", () => {
  it("a flood of token requests from one address meets 429 burst_limited with Retry-After", async () => {
    const from = freshAddress();
    const form = new URLSearchParams({ grant_type: "client_credentials", client_id: "nobody", client_secret: "lk_wrong" }).toString();
    const answers = await Promise.all(
      Array.from({ length: DEFAULT_BURST.anonymous.capacity + 30 }, () =>
        fetch(`${stack.base}/oauth/token`, { method: "POST", headers: { "x-forwarded-for": from, "content-type": "application/x-www-form-urlencoded" }, body: form }),
      ),
    );
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await codeOf(limited[0]!)).toBe("burst_limited");
    for (const r of answers) await r.body?.cancel().catch(() => undefined);
  });
});

describe("d: MCP: one tools/call per message, and paid calls burst-limited", () => {
  const mcp = (from: string, body: unknown) =>
    fetch(`${stack.base}/mcp`, {
      method: "POST",
      headers: { "x-forwarded-for": from, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(body),
    });
  const call = (id: number, meta?: Record<string, unknown>) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "get_regime_live", arguments: {}, ...(meta && { _meta: meta }) },
  });

  it("a JSON-RPC batch carrying tools/call is refused with -32600 and nothing in it is run", async () => {
    const claims = listen(paymentsClaim.subject);
    const payment = JSON.parse(Buffer.from(await junkPayment(), "base64").toString()) as unknown;
    const res = await mcp(freshAddress(), [call(1, { "x402/payment": payment }), call(2, { "x402/payment": payment }), call(3)]);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/one tools\/call per POST/);
    await new Promise((r) => setTimeout(r, 100));
    claims.sub.unsubscribe();
    expect(claims.count()).toBe(0);
  });

  it("paid calls spend the client address's burst: a flood meets burst_limited results before payments is asked", async () => {
    const from = freshAddress();
    const claims = listen(paymentsClaim.subject);
    const payment = JSON.parse(Buffer.from(await junkPayment(), "base64").toString()) as unknown;
    const n = DEFAULT_BURST.anonymous.capacity + 30;
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => mcp(from, call(i, { "x402/payment": payment })).then((r) => r.json())));
    const codes = answers.map((a) => {
      const result = (a as { result?: { structuredContent?: { error?: { code?: string } } } }).result;
      return result?.structuredContent?.error?.code ?? "other";
    });
    const limited = codes.filter((c) => c === "burst_limited").length;
    expect(limited).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 200));
    claims.sub.unsubscribe();
    expect(claims.count()).toBeLessThanOrEqual(n - limited);
  });
});

describe("e: a payment that fails local verification never reaches the facilitator or the chain's RPC", () => {
  it("junk v2 and v1 payments (signature not of `from`, and with wrong terms too) are refused with no JSON-RPC request to the node", async () => {
    const from = freshAddress();
    const junk: [string, string, string][] = [
      ["v2, signature not of from", await junkPayment(), "payment-signature"],
      ["v2, not of from and expired", await junkPayment((pr) => void (pr.accepts[0]!.maxTimeoutSeconds = 1)), "payment-signature"],
      ["v2 in X-PAYMENT", await junkPayment(), "x-payment"],
    ];
    // The v1 dialect: the same authorization inside a v1 payload.
    const v2 = JSON.parse(Buffer.from(await junkPayment(), "base64").toString()) as { payload: unknown };
    junk.push(["v1, signature not of from", Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: "base", payload: v2.payload })).toString("base64"), "x-payment"]);
    await new Promise((r) => setTimeout(r, 1500));
    for (const [name, payment, header] of junk) {
      rpcMethods.length = 0;
      const res = await get("/api/board/regime", { "x-forwarded-for": from, [header]: payment });
      expect(res.status, name).toBe(402);
      const reason = ((await res.json()) as { error?: string | { code?: string } }).error;
      expect(typeof reason === "string" ? reason : reason?.code, name).toMatch(/^payment_(invalid_signature|expired)$/);
      expect(rpcMethods, name).toEqual([]);
    }
  });
});

describe("g: an IPv6 client counts as its /64", () => {
  const inPrefix = (n: number) => `2001:db8:1234:5678:${(n + 1).toString(16)}::${(n * 7 + 1).toString(16)}`;

  it("the burst: many addresses of one /64 share one bucket", async () => {
    const n = DEFAULT_BURST.anonymous.capacity + 30;
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => get("/api/board/free", { "x-forwarded-for": inPrefix(i) })));
    expect(answers.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    for (const r of answers) await r.body?.cancel().catch(() => undefined);
    // Another /64 is another client.
    expect((await get("/api/board/free", { "x-forwarded-for": "2001:db8:1234:5679::1" })).status).toBe(200);
  });

  it("the event stream cap: a fifth stream from another address of the same /64 is refused too_many_streams", async () => {
    const controllers: AbortController[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const c = new AbortController();
      controllers.push(c);
      const res = await fetch(`${stack.base}/api/board/events`, { headers: { "x-forwarded-for": `2001:db8:aaaa:bbbb::${i + 1}` }, signal: c.signal });
      statuses.push(res.status);
      if (res.status !== 200) await res.body?.cancel();
    }
    for (const c of controllers) c.abort();
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    expect(statuses[4]).toBe(429);
  });
});
