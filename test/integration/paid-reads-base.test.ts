import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { FullBoard, PAID_ROUTES, paymentsClaim, ROUTE_BY_PATH } from "@board/proto";
import { request } from "@board/service-kit";
import { createPublicClient, createWalletClient, http, numberToHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { wrapFetchWithPayment as wrapFetchV1 } from "x402-fetch";
import { fixtureSnapshot } from "@board/service-kit/testing";
import { appendPaymentIdentifierToExtensions, generatePaymentId, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import nodeHttp from "node:http";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeElsewhere, refusal, Stack, until } from "./harness.js";
import { settledCount } from "./settled.js";

const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 6 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments(paymentsEnv());
  // Wait for the board to have the current snapshot.
  await stack.untilServing();
}, 60_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
});

const paymentsEnv = (extra: Record<string, string> = {}) => ({
  PAY_TO_BASE: payTo,
  BASE_RPC_URL: chain.rpcUrl,
  BASE_FACILITATOR_KEY: chain.accounts[0] as Hex,
  PUBLIC_BASE_URL: "http://127.0.0.1:8080",
  ...extra,
});

async function payer(usdc: bigint) {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  if (usdc > 0n) await chain.mint(account.address, usdc);
  return { key, account };
}

function v2Fetch(key: Hex) {
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
  return wrapFetchWithPayment(fetch, client);
}

describe("paid reads on Base (local EDR chain, chainId 8453)", () => {
  it("answers a paid route with a 402 both client generations can pay from", async () => {
    const res = await fetch(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(402);
    const header = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    expect(header.x402Version).toBe(2);
    expect(header.accepts[0]).toMatchObject({ scheme: "exact", network: "eip155:8453", amount: "5000", payTo, asset: chain.usdc });
    expect(header.extensions?.["sign-in-with-x"]).toBeTruthy();
    const body = (await res.json()) as { x402Version: number; accepts: { network: string; maxAmountRequired: string }[]; v2: unknown };
    expect(body.x402Version).toBe(1);
    expect(body.accepts.map((a) => a.network)).toEqual(["base"]);
    expect(body.accepts[0]!.maxAmountRequired).toBe("5000");
    expect(body.v2).toMatchObject({ x402Version: 2 });
  });

  it("GET /api is the whole catalogue as one 402: every paid route, its price and every offer", async () => {
    const res = await fetch(`${stack.base}/api`);
    expect(res.status).toBe(402);
    const body = (await res.json()) as { routes: { path: string; price: { amount: string }; accepts: { network: string; amount: string }[] }[] };
    const paths = body.routes.map((r) => r.path);
    expect(paths).toEqual(PAID_ROUTES.map((r) => r.path));
    for (const r of body.routes) {
      expect(r.accepts.length).toBeGreaterThan(0);
      for (const offer of r.accepts) expect(offer.amount).toBe(r.price.amount);
    }
  });

  it("@x402/fetch pays and reads; the payTo balance grows by the price; PAYMENT-RESPONSE and freshness headers are present", async () => {
    const { key, account } = await payer(1_000_000n);
    const before = await chain.balanceOf(payTo);
    const res = await v2Fetch(key)(`${stack.base}/api/board/agent`);
    expect(res.status).toBe(200);
    FullBoard.parse(await res.json());
    const receipt = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(receipt).toMatchObject({ success: true, network: "eip155:8453" });
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.headers.get("x-board-market-open")).toMatch(/^(true|false)$/);
    expect(res.headers.get("x-board-data-age")).toMatch(/^\d+$/);
    expect(res.headers.get("x-board-next-refresh")).toBeTruthy();
    expect(await chain.balanceOf(payTo)).toBe(before + 250_000n);
    expect(await chain.balanceOf(account.address)).toBe(750_000n);
    // The status view shows the settlement (payments' event reaches every board replica).
    type Status = { last_settlement_at: string | null; pending: object };
    let status: Status = { last_settlement_at: null, pending: {} };
    await until(async () => {
      status = (await (await fetch(`${stack.base}/api/board/status`)).json()) as Status;
      return status.last_settlement_at !== null;
    });
    expect(Date.parse(status.last_settlement_at ?? "")).toBeGreaterThan(Date.now() - 10_000);
    expect(status.pending).not.toHaveProperty("last_settlement_at");
  });

  it("x402-fetch 1.x pays from the v1-dialect body with X-PAYMENT", async () => {
    const { key } = await payer(100_000n);
    const wallet = createWalletClient({ account: privateKeyToAccount(key), chain: chain.chain, transport: http(chain.rpcUrl) });
    const before = await chain.balanceOf(payTo);
    const res = await wrapFetchV1(fetch, wallet as never)(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-payment-response")).toBeTruthy();
    expect(await chain.balanceOf(payTo)).toBe(before + 5_000n);
  });
});

/** The 402 of a path, decoded from its PAYMENT-REQUIRED header. */
async function offersOf(path: string): Promise<PaymentRequired> {
  const res = await fetch(`${stack.base}${path}`);
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get("payment-required")!);
}

/** A payment signed by @x402/evm's own client for the (possibly altered) first offer of `path`. */
async function signedPayment(key: Hex, path: string, alter: (pr: PaymentRequired) => void = () => undefined): Promise<string> {
  const pr = await offersOf(path);
  pr.accepts = pr.accepts.slice(0, 1);
  alter(pr);
  // Spend controls off: this client must be able to sign for the altered (unknown) asset too.
  const client = x402Client.fromConfig({ schemes: [], spendControls: false }).register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
  return encodePaymentSignatureHeader(await client.createPaymentPayload(pr));
}



describe("single use and refusals", () => {
  it("a payment buys one read: the same payment again is delivered again (same bytes, first receipt, Payment-Redelivery) up to REDELIVERY_MAX, then refused; charged once", async () => {
    const { key } = await payer(100_000n);
    const payment = await signedPayment(key, "/api/board/regime");
    const before = await chain.balanceOf(payTo);
    const first = await stack.paidGet("/api/board/regime", payment);
    expect(first.status).toBe(200);
    expect(first.headers.get("payment-redelivery")).toBeNull();
    const bytes = Buffer.from(await first.arrayBuffer());
    const receipt = first.headers.get("payment-response");
    for (const [n, header] of [[1, "payment-signature"], [2, "x-payment"], [3, "payment-signature"]] as const) {
      const again = await stack.paidGet("/api/board/regime", payment, header);
      expect(again.status).toBe(200);
      expect(again.headers.get("payment-redelivery")).toBe(String(n));
      expect(again.headers.get("payment-response")).toBe(receipt);
      expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
    }
    expect(await refusal(await stack.paidGet("/api/board/regime", payment))).toBe("payment_redelivery_exhausted");
    expect(await chain.balanceOf(payTo)).toBe(before + 5_000n);
  });

  it("20 concurrent identical payments: exactly one is settled and charged; the others are refused or, once it settled, delivered the same read again", async () => {
    const rounds = 8;
    const before = await chain.balanceOf(payTo);
    for (let round = 0; round < rounds; round++) {
      const { key } = await payer(10_000n);
      const payment = await signedPayment(key, "/api/board/movers");
      const results = await Promise.all(Array.from({ length: 20 }, () => stack.paidGet("/api/board/movers", payment)));
      const bought = results.filter((r) => r.status === 200 && r.headers.get("payment-redelivery") === null);
      expect(bought.length, `round ${round}`).toBe(1);
      for (const r of results.filter((r) => r.status !== 200)) expect(["payment_already_used", "payment_redelivery_exhausted"]).toContain(await refusal(r));
    }
    expect(await chain.balanceOf(payTo)).toBe(before + BigInt(rounds) * 5_000n);
    const settled = (await stack.payments!.claims.settlementStats()).settlements;
    expect(settled).toBeGreaterThanOrEqual(rounds);
  });

  it("20 concurrent distinct payments all settle from one facilitator account (nonce manager)", async () => {
    const before = await chain.balanceOf(payTo);
    const payments: string[] = [];
    // Minting is sequential (the test's minter has no nonce manager); paying is concurrent.
    for (let i = 0; i < 20; i++) payments.push(await signedPayment((await payer(5_000n)).key, "/api/board/indices"));
    const results = await Promise.all(payments.map((p) => stack.paidGet("/api/board/indices", p)));
    const failures = await Promise.all(results.filter((r) => r.status !== 200).map(async (r) => `${r.status} ${await r.text()}`));
    expect(failures).toEqual([]);
    expect(await chain.balanceOf(payTo)).toBe(before + 20n * 5_000n);
  });

  it("refuses tampered terms with a reason the client can act on, and charges nothing", async () => {
    const { key } = await payer(1_000_000n);
    const before = await chain.balanceOf(payTo);
    const other = privateKeyToAccount(generatePrivateKey()).address;
    const cases: [string, (pr: PaymentRequired) => void, string][] = [
      ["amount", (pr) => void (pr.accepts[0]!.amount = "4000"), "payment_amount_mismatch"],
      ["payTo", (pr) => void (pr.accepts[0]!.payTo = other), "payment_pay_to_mismatch"],
      ["asset", (pr) => void (pr.accepts[0]!.asset = other), "payment_asset_mismatch"],
      ["network", (pr) => void (pr.accepts[0]!.network = "eip155:1"), "payment_network_mismatch"],
      ["expired", (pr) => void (pr.accepts[0]!.maxTimeoutSeconds = 1), "payment_expired"],
    ];
    for (const [name, alter, code] of cases) {
      const payment = await signedPayment(key, "/api/board/regime", alter);
      expect(await refusal(await stack.paidGet("/api/board/regime", payment)), name).toBe(code);
    }
    // Paid for another route at the same price.
    const forIndices = await signedPayment(key, "/api/board/indices");
    expect(await refusal(await stack.paidGet("/api/board/regime", forIndices))).toBe("payment_route_mismatch");
    // The signed value altered after signing: the signature no longer verifies.
    const forged = JSON.parse(Buffer.from(await signedPayment(key, "/api/board/regime"), "base64").toString()) as {
      payload: { authorization: { value: string } };
      accepted: { amount: string };
    };
    forged.payload.authorization.value = "1";
    forged.accepted.amount = "5000";
    expect(await refusal(await stack.paidGet("/api/board/regime", Buffer.from(JSON.stringify(forged)).toString("base64")))).toBe(
      "payment_invalid_signature",
    );
    for (const junk of ["not base64!", Buffer.from("{}").toString("base64"), Buffer.from("[1,2]").toString("base64")]) {
      expect(await refusal(await stack.paidGet("/api/board/regime", junk)), junk).toBe("payment_invalid_header");
    }
    expect(await chain.balanceOf(payTo)).toBe(before);
  });

  it("refuses a payer without the funds", async () => {
    const { key } = await payer(1_000n);
    expect(await refusal(await stack.paidGet("/api/board/regime", await signedPayment(key, "/api/board/regime")))).toBe("payment_insufficient_funds");
  });

  it("a board read failing after the claim releases it: nothing settled, and the same payment buys the read later", async () => {
    const { key, account } = await payer(5_000n);
    const payment = await signedPayment(key, "/api/board/regime");
    await stack.stopBoard();
    const failed = await stack.paidGet("/api/board/regime", payment);
    expect(failed.status).toBe(503);
    expect(await chain.balanceOf(account.address)).toBe(5_000n);
    await stack.startBoard();
    let res = await stack.paidGet("/api/board/regime", payment);
    for (let i = 0; i < 50 && res.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await stack.paidGet("/api/board/regime", payment);
    }
    expect(res.status).toBe(200);
    expect(await chain.balanceOf(account.address)).toBe(0n);
  });

  it("a settlement that fails serves nothing", async () => {
    const { key, account } = await payer(5_000n);
    const payment = await signedPayment(key, "/api/board/regime");
    const rpc = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
    const facilitator = privateKeyToAccount(chain.accounts[0] as Hex).address;
    const gas = await rpc.getBalance({ address: facilitator });
    // The facilitator cannot pay for gas: the settlement transaction cannot be sent.
    await rpc.request({ method: "hardhat_setBalance" as never, params: [facilitator, "0x0"] as never });
    try {
      const res = await stack.paidGet("/api/board/regime", payment);
      expect(await refusal(res)).toBe("payment_settlement_failed");
      expect(await chain.balanceOf(account.address)).toBe(5_000n);
    } finally {
      await rpc.request({ method: "hardhat_setBalance" as never, params: [facilitator, numberToHex(gas)] as never });
    }
  });
});

describe("reconciliation after a restart", () => {
  it("settles claims whose payment moved on chain, releases the others so they can buy a read", async () => {
    const moved = await payer(5_000n);
    const stranded = await payer(5_000n);
    const movedPayment = await signedPayment(moved.key, "/api/board/regime");
    const strandedPayment = await signedPayment(stranded.key, "/api/board/regime");
    // Two claims left open, as when a process stops between claim and settlement.
    const claim = (value: string) => request(stack.nc, paymentsClaim, { path: "/api/board/regime", query: "", carrier: "payment-signature", value });
    const a = await claim(movedPayment);
    const b = await claim(strandedPayment);
    // The first payment's authorization is executed on chain by someone else meanwhile.
    const tx = await executeElsewhere(chain, chain.accounts[1] as Hex, movedPayment);
    await stack.stopPayments();
    await new Promise((r) => setTimeout(r, 1_100));
    await stack.startPayments(paymentsEnv({ RECONCILE_AFTER_SECONDS: "1" }));
    const claims = stack.payments!.claims;
    expect(await claims.get(a.claim_id)).toMatchObject({ state: "settled", transaction: tx });
    expect(await claims.get(b.claim_id)).toMatchObject({ state: "released" });
    expect((await stack.paidGet("/api/board/regime", strandedPayment)).status).toBe(200);
    expect(await refusal(await stack.paidGet("/api/board/regime", movedPayment))).toBe("payment_already_used");
  });
});

describe("redelivery: a retry of a settled payment gets what it bought", () => {
  /** Served reads metering counted for `route` (the reads_served table). */
  async function servedCount(route: string): Promise<number> {
    const db = new pg.Client({ connectionString: stack.db.url });
    await db.connect();
    try {
      return Number((await db.query<{ n: string }>("select coalesce(sum(count), 0) as n from metering.reads_served where route = $1", [route])).rows[0]?.n ?? 0);
    } finally {
      await db.end();
    }
  }

  it("the board version it bought, byte for byte, after a newer board is published; a redelivery is not a new served read", async () => {
    const { key } = await payer(100_000n);
    const payment = await signedPayment(key, "/api/board/leaders");
    const counted = await servedCount("/api/board/leaders");
    const first = await stack.paidGet("/api/board/leaders", payment);
    expect(first.status).toBe(200);
    const bytes = Buffer.from(await first.arrayBuffer());
    await until(async () => (await servedCount("/api/board/leaders")) === counted + 1);

    const computedAt = async () => ((await (await fetch(`${stack.base}/api/board/status`)).json()) as { computed_at: string }).computed_at;
    const was = await computedAt();
    await stack.publish(fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T10:05:00-08:00", seed: 7, intraday: true }));
    await until(async () => (await computedAt()) !== was);
    const fresh = await stack.paidGet("/api/board/leaders", await signedPayment(key, "/api/board/leaders"));
    expect(fresh.status).toBe(200);
    expect(Buffer.from(await fresh.arrayBuffer()).equals(bytes)).toBe(false);

    const again = await stack.paidGet("/api/board/leaders", payment);
    expect(again.status).toBe(200);
    expect(again.headers.get("payment-redelivery")).toBe("1");
    expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
    // The fresh purchase counts; the redelivery does not.
    expect(await settledCount(() => servedCount("/api/board/leaders"), { atLeast: counted + 2, holdMs: 400 })).toBe(counted + 2);
  });

  it("only the read it bought: a retry asking other parameters is refused payment_already_used and served nothing; another spelling of the same read is delivered", async () => {
    const { key } = await payer(100_000n);
    const sym = ((await (await fetch(`${stack.base}/api/board/symbols`)).json()) as { symbols: { sym: string }[] }).symbols.slice(0, 3).map((s) => s.sym);
    const bought = `/api/board/name?sym=${sym[0]},${sym[1]}`;
    const payment = await signedPayment(key, bought);
    const before = await chain.balanceOf(payTo);
    const first = await stack.paidGet(bought, payment);
    expect(first.status).toBe(200);
    await until(async () => (await chain.balanceOf(payTo)) > before);
    const paid = await chain.balanceOf(payTo);
    // Other symbols, one more symbol, or none: not what this payment bought.
    for (const other of [`/api/board/name?sym=${sym[2]}`, `/api/board/name?sym=${sym[0]},${sym[1]},${sym[2]}`, `/api/board/name?sym=${sym[1]}`]) {
      const res = await stack.paidGet(other, payment);
      expect(res.status, other).toBe(402);
      expect(await refusal(res), other).toBe("payment_already_used");
    }
    // The same read spelt otherwise (lower case, repeated) is the read it bought.
    const again = await stack.paidGet(`/api/board/name?sym=${sym[0]!.toLowerCase()}&sym=${sym[1]}`, payment);
    expect(again.status).toBe(200);
    expect(again.headers.get("payment-redelivery")).toBe("1");
    expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.from(await first.arrayBuffer()))).toBe(true);
    expect(await chain.balanceOf(payTo)).toBe(paid);
  });

  it("past the window the same payment is refused payment_redelivery_expired, and charges nothing", async () => {
    await stack.stopPayments();
    await stack.startPayments(paymentsEnv({ REDELIVERY_WINDOW_SECONDS: "1" }));
    try {
      const { key } = await payer(10_000n);
      const payment = await signedPayment(key, "/api/board/regime");
      expect((await stack.paidGet("/api/board/regime", payment)).status).toBe(200);
      const before = await chain.balanceOf(payTo);
      await new Promise((r) => setTimeout(r, 1_200));
      expect(await refusal(await stack.paidGet("/api/board/regime", payment))).toBe("payment_redelivery_expired");
      expect(await chain.balanceOf(payTo)).toBe(before);
    } finally {
      await stack.stopPayments();
      await stack.startPayments(paymentsEnv());
    }
  });

  it("@x402/fetch with the payment-identifier helper: a network failure after the purchase, the retry signs a new payment with the same id and is served the read again, charged once", async () => {
    const { key, account } = await payer(100_000n);
    const id = generatePaymentId("pay_");
    const client = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
    client.registerExtension({
      key: PAYMENT_IDENTIFIER,
      enrichPaymentPayload: async (payload, required) => ({ ...payload, extensions: appendPaymentIdentifierToExtensions({ ...(required.extensions ?? {}), ...(payload.extensions ?? {}) }, id) }),
    });
    // The first paid request reaches the server and is served, but its answer is lost on the way back.
    let drops = 1;
    const flaky: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const paid = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).has("payment-signature");
      if (paid && drops > 0) {
        drops--;
        await res.arrayBuffer();
        throw new TypeError("fetch failed: the connection was reset");
      }
      return res;
    };
    const pay = wrapFetchWithPayment(flaky, client);
    const before = await chain.balanceOf(payTo);
    await expect(pay(`${stack.base}/api/board/indices`)).rejects.toThrow(/reset/);
    const retried = await pay(`${stack.base}/api/board/indices`);
    expect(retried.status).toBe(200);
    expect(retried.headers.get("payment-redelivery")).toBe("1");
    expect(decodePaymentResponseHeader(retried.headers.get("payment-response")!)).toMatchObject({ success: true });
    expect(await chain.balanceOf(payTo)).toBe(before + 5_000n);
    expect(await chain.balanceOf(account.address)).toBe(95_000n);
  });
});

describe("redelivery after a dropped connection", () => {
  it("the client drops the connection before reading the body: the retry with the same payment gets the bytes it bought; a different payment for the same payer and nonce is refused", async () => {
    const { key } = await payer(100_000n);
    const payment = await signedPayment(key, "/api/board/sectors");
    const price = ROUTE_BY_PATH.get("/api/board/sectors")!.price!;
    const before = await chain.balanceOf(payTo);
    // Headers come, then the socket is torn down before the body is read.
    await new Promise<void>((resolve, reject) => {
      const req = nodeHttp.get(`${stack.base}/api/board/sectors`, { headers: { "payment-signature": payment } }, (res) => {
        try {
          expect(res.statusCode).toBe(200);
          res.destroy();
          resolve();
        } catch (err) {
          reject(err as Error);
        }
      });
      req.on("error", reject);
    });
    const first = await stack.paidGet("/api/board/sectors", payment);
    expect(first.status).toBe(200);
    expect(first.headers.get("payment-redelivery")).toBe("1");
    const bytes = Buffer.from(await first.arrayBuffer());
    const second = await stack.paidGet("/api/board/sectors", payment);
    expect(second.headers.get("payment-redelivery")).toBe("2");
    expect(Buffer.from(await second.arrayBuffer()).equals(bytes)).toBe(true);
    expect(await chain.balanceOf(payTo)).toBe(before + price);

    // Someone else's payload for the same payer and nonce (its signature altered): the key is held, not by this payment.
    const forged = JSON.parse(Buffer.from(payment, "base64").toString()) as { payload: { signature: string } };
    forged.payload.signature = `${forged.payload.signature.slice(0, -4)}${forged.payload.signature.endsWith("1b") ? "1c" : "1b"}`.padEnd(forged.payload.signature.length, "0");
    const third = await stack.paidGet("/api/board/sectors", Buffer.from(JSON.stringify(forged)).toString("base64"));
    expect(["payment_already_used", "payment_invalid_signature"]).toContain(await refusal(third));
    expect(await chain.balanceOf(payTo)).toBe(before + price);
  });
});
