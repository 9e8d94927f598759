import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { Receipt } from "mppx";
import { Mppx } from "mppx/client";
import type { Hex, PrivateKeyAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usdcClientMethod } from "../../services/payments/test/support/mpp-usdc-client.js";
import { paymentsClaim } from "@board/proto";
import { request } from "@board/service-kit";
import { purchases, Stack } from "./harness.js";

/** Payments' REDELIVERY_MAX default: a settled payment sent again is delivered again this many times. */
const REDELIVERY_LIMIT = 3;

const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;

// Generated per run: never a committed secret.
const MPP_SECRET_KEY = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
const paymentsEnv = (extra: Record<string, string> = {}) => ({
  PAY_TO_BASE: payTo,
  BASE_RPC_URL: chain.rpcUrl,
  BASE_FACILITATOR_KEY: chain.accounts[0] as Hex,
  PUBLIC_BASE_URL: "http://127.0.0.1:8080",
  MPP_SECRET_KEY,
  ...extra,
});

beforeAll(async () => {
  chain = await startEvmChain();
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments(paymentsEnv());
  await stack.untilServing();
}, 60_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
});

async function payer(usdc: bigint): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  if (usdc > 0n) await chain.mint(account.address, usdc);
  return account;
}
const mppxFor = (account: PrivateKeyAccount) => Mppx.create({ methods: [usdcClientMethod(account)], polyfill: false });

describe("MPP (usdc charge on Base) through the gateway", () => {
  it("the 402 carries the MPP challenge beside the x402 offers", async () => {
    const res = await fetch(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(402);
    expect(res.headers.get("www-authenticate")).toMatch(/^Payment /);
    expect(res.headers.get("www-authenticate")).toMatch(/method="usdc"/);
    expect(res.headers.get("www-authenticate")).toMatch(/intent="charge"/);
    expect(res.headers.get("payment-required")).toBeTruthy();
  });

  it("mppx's client pays; the read comes with a Payment-Receipt and the freshness headers; payTo grows by the price", async () => {
    const account = await payer(100_000n);
    const before = await chain.balanceOf(payTo);
    const res = await mppxFor(account).fetch(`${stack.base}/api/board/regime`);
    if (res.status !== 200) console.log("DEBUG", res.headers.get("www-authenticate"), await res.text());
    expect(res.status).toBe(200);
    const receipt = Receipt.fromResponse(res);
    expect(receipt.reference).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.headers.get("x-board-data-age")).toMatch(/^\d+$/);
    expect(await chain.balanceOf(payTo)).toBe(before + 5_000n);
    expect(await chain.balanceOf(account.address)).toBe(95_000n);
  });

  it("a credential buys one read: concurrent copies are refused with problem+json or delivered again once it settled; sent again later it is delivered again, charged once", async () => {
    const account = await payer(100_000n);
    const credential = await mppxFor(account).createCredential(await fetch(`${stack.base}/api/board/movers`));
    const results = await Promise.all(Array.from({ length: 10 }, () => fetch(`${stack.base}/api/board/movers`, { headers: { Authorization: credential } })));
    expect(purchases(results)).toHaveLength(1);
    // Copies that arrive once it settled are deliveries again, up to the limit; past it, refused.
    const redelivered = results.filter((r) => r.status === 200 && r.headers.get("payment-redelivery") !== null).length;
    expect(redelivered).toBeLessThanOrEqual(REDELIVERY_LIMIT);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(402);
      expect(r.headers.get("content-type")).toMatch(/application\/problem\+json/);
      expect(r.headers.get("www-authenticate")).toMatch(/^Payment /);
      expect(["payment_already_used", "payment_redelivery_exhausted"]).toContain(((await r.json()) as { code: string }).code);
    }
    const again = await fetch(`${stack.base}/api/board/movers`, { headers: { Authorization: credential } });
    if (redelivered < REDELIVERY_LIMIT) {
      expect(again.status).toBe(200);
      expect(again.headers.get("payment-receipt")).toBeTruthy();
      expect(Number(again.headers.get("payment-redelivery"))).toBeGreaterThanOrEqual(1);
    } else {
      expect(again.status).toBe(402);
      expect(((await again.json()) as { code: string }).code).toBe("payment_redelivery_exhausted");
    }
    // Charged once, however the copies fell.
    expect(await chain.balanceOf(account.address)).toBe(95_000n);
  });

  it("a credential for another route is refused; a payer without funds is refused; nothing moves", async () => {
    const account = await payer(5_000n);
    const forRegime = await mppxFor(account).createCredential(await fetch(`${stack.base}/api/board/regime`));
    const elsewhere = await fetch(`${stack.base}/api/board/indices`, { headers: { Authorization: forRegime } });
    expect(elsewhere.status).toBe(402);
    expect(((await elsewhere.json()) as { code: string }).code).toMatch(/^payment_(route_mismatch|invalid_header)$/);
    const broke = await payer(0n);
    const brokeCredential = await mppxFor(broke).createCredential(await fetch(`${stack.base}/api/board/regime`));
    const refused = await fetch(`${stack.base}/api/board/regime`, { headers: { Authorization: brokeCredential } });
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { code: string }).code).toBe("payment_insufficient_funds");
    expect(await chain.balanceOf(account.address)).toBe(5_000n);
  });

  it("a claim left open by a restart is reconciled on Base: never settled -> released, and the credential buys the read", async () => {
    const account = await payer(5_000n);
    const credential = await mppxFor(account).createCredential(await fetch(`${stack.base}/api/board/regime`));
    const claim = await request(stack.nc, paymentsClaim, { path: "/api/board/regime", query: "", carrier: "authorization", value: credential });
    await stack.stopPayments();
    await new Promise((r) => setTimeout(r, 1_100));
    await stack.startPayments(paymentsEnv({ RECONCILE_AFTER_SECONDS: "1" }));
    expect(await stack.payments!.claims.get(claim.claim_id)).toMatchObject({ state: "released" });
    expect((await fetch(`${stack.base}/api/board/regime`, { headers: { Authorization: credential } })).status).toBe(200);
  });
});
