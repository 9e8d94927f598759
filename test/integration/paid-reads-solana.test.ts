import { generateKeyPairSync } from "node:crypto";
import { paymentsClaim } from "@board/proto";
import { request } from "@board/service-kit";
import { startSvmChain, type SvmChain, type SvmKeypair } from "@board/test-chains/svm";
import { createKeyPairSignerFromBytes, getBase58Decoder } from "@solana/kit";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { toFacilitatorSvmSigner } from "@x402/svm";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { createSigner, wrapFetchWithPayment as wrapFetchV1 } from "x402-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLANA_NETWORK } from "../../services/payments/src/rails/solana-exact.js";
import { expectRedelivered, purchases, refusal, Stack } from "./harness.js";

const stack = new Stack();
let chain: SvmChain;
const base58 = getBase58Decoder();

/** A fresh Ed25519 keypair in Solana's 64-byte form; it holds no SOL, so it cannot pay a fee. */
function keypair() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = Buffer.from(privateKey.export({ format: "jwk" }).d!, "base64url");
  const pub = Buffer.from(publicKey.export({ format: "jwk" }).x!, "base64url");
  const secretKey = new Uint8Array(Buffer.concat([seed, pub]));
  return { address: base58.decode(pub), secretKey, secretKeyBase58: base58.decode(secretKey) };
}

const payTo = keypair().address;
let feePayer: SvmKeypair;

const paymentsEnv = (extra: Record<string, string> = {}) => ({
  PAY_TO_SOLANA: payTo,
  SOLANA_RPC_URL: chain.rpcUrl,
  SOLANA_FACILITATOR_KEY: feePayer.secretKeyBase58,
  PUBLIC_BASE_URL: "http://127.0.0.1:8080",
  ...extra,
});

/** Payments configured through env, as in production. */
async function startPayments(extra: Record<string, string> = {}) {
  return stack.startPayments(paymentsEnv(extra));
}

beforeAll(async () => {
  chain = await startSvmChain({ accounts: 1 });
  feePayer = chain.accounts[0]!;
  await chain.mint(payTo, 0n); // the payee's token account
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await startPayments();
  await stack.untilServing();
}, 60_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
});

async function payer(usdc: bigint) {
  const kp = keypair();
  if (usdc > 0n) await chain.mint(kp.address, usdc);
  return kp;
}

/** The v2 client with only the SVM exact scheme, pointed at the local chain. */
async function svmClient(secretKey: Uint8Array) {
  const signer = await createKeyPairSignerFromBytes(secretKey);
  return x402Client.fromConfig({ schemes: [], spendControls: false }).register("solana:*", new ExactSvmScheme(signer, { rpcUrl: chain.rpcUrl }));
}

async function offersOf(path: string): Promise<PaymentRequired> {
  const res = await fetch(`${stack.base}${path}`);
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get("payment-required")!);
}

/** A payment signed by @x402/svm's own client for the Solana offer of `path`. */
async function signedPayment(secretKey: Uint8Array, path: string): Promise<string> {
  const pr = await offersOf(path);
  pr.accepts = pr.accepts.filter((a) => a.network === SOLANA_NETWORK);
  return encodePaymentSignatureHeader(await (await svmClient(secretKey)).createPaymentPayload(pr));
}



describe("paid reads on Solana (local LiteSVM chain, mainnet USDC mint)", () => {
  it("offers Solana USDC with our facilitator as fee payer, in both dialects", async () => {
    const pr = await offersOf("/api/board/regime");
    expect(pr.accepts).toHaveLength(1);
    expect(pr.accepts[0]).toMatchObject({ scheme: "exact", network: SOLANA_NETWORK, amount: "5000", payTo, asset: chain.usdcMint });
    expect(pr.accepts[0]!.extra).toMatchObject({ feePayer: feePayer.address });
    // The offer is built once per price: it must not pin a blockhash that expires.
    expect(pr.accepts[0]!.extra).not.toHaveProperty("recentBlockhash");
    const body = (await (await fetch(`${stack.base}/api/board/regime`)).json()) as { accepts: { network: string; asset: string; extra: object }[] };
    expect(body.accepts.map((a) => a.network)).toEqual(["solana"]);
    expect(body.accepts[0]).toMatchObject({ asset: chain.usdcMint, extra: { feePayer: feePayer.address } });
  });

  it("@x402/fetch (SVM scheme only) pays and reads; payTo gains exactly the price; the fee payer pays the fee", async () => {
    const kp = await payer(100_000n);
    const before = { payTo: await chain.balanceOf(payTo), fees: await chain.lamportsOf(feePayer.address) };
    const res = await wrapFetchWithPayment(fetch, await svmClient(kp.secretKey))(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(200);
    const receipt = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(receipt).toMatchObject({ success: true, network: SOLANA_NETWORK, payer: kp.address });
    expect(receipt.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(await chain.balanceOf(payTo)).toBe(before.payTo + 5_000n);
    expect(await chain.balanceOf(kp.address)).toBe(95_000n);
    expect(await chain.lamportsOf(kp.address)).toBe(0n);
    expect(await chain.lamportsOf(feePayer.address)).toBeLessThan(before.fees);
    expect(await stack.payments!.claims.settlementStats()).toMatchObject({ settlements: expect.any(Number) as number });
  });

  it("per paid read latency (402 round trip, client signing, verify, claim, read, settle)", async () => {
    const kp = await payer(1_000_000n);
    const pay = wrapFetchWithPayment(fetch, await svmClient(kp.secretKey));
    const before = await chain.balanceOf(payTo);
    const ms: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      const res = await pay(`${stack.base}/api/board/regime`);
      ms.push(performance.now() - t0);
      expect(res.status).toBe(200);
    }
    ms.sort((a, b) => a - b);
    const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(1);
    console.info(`solana paid read: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms over ${ms.length}`);
    expect(await chain.balanceOf(payTo)).toBe(before + 20n * 5_000n);
  });

  it("an offer outlives blockhashes: clients fetch their own", async () => {
    chain.advanceBlocks(200);
    const kp = await payer(5_000n);
    expect((await stack.paidGet("/api/board/regime", await signedPayment(kp.secretKey, "/api/board/regime"))).status).toBe(200);
    expect(await chain.balanceOf(kp.address)).toBe(0n);
  });

  it("x402-fetch 1.x pays from the v1-dialect body with X-PAYMENT (svmConfig.rpcUrl points it at the local chain)", async () => {
    const kp = await payer(100_000n);
    const before = await chain.balanceOf(payTo);
    const signer = await createSigner("solana", kp.secretKeyBase58);
    const res = await wrapFetchV1(fetch, signer, undefined, undefined, { svmConfig: { rpcUrl: chain.rpcUrl } })(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-payment-response")).toBeTruthy();
    expect(await chain.balanceOf(payTo)).toBe(before + 5_000n);
    expect(await chain.lamportsOf(kp.address)).toBe(0n);
  });
});

describe("single use and refusals", () => {
  it("a payment buys one read: the same payment again is delivered again (Payment-Redelivery), never charged twice", async () => {
    const kp = await payer(100_000n);
    const payment = await signedPayment(kp.secretKey, "/api/board/regime");
    const before = await chain.balanceOf(payTo);
    expect((await stack.paidGet("/api/board/regime", payment)).status).toBe(200);
    await expectRedelivered(await stack.paidGet("/api/board/regime", payment), 1);
    await expectRedelivered(await stack.paidGet("/api/board/regime", payment, "x-payment"), 2);
    expect(await chain.balanceOf(payTo)).toBe(before + 5_000n);
  });

  // As on Base: a copy that arrives once the first has settled is delivered the same read again
  // (at most REDELIVERY_MAX times, then refused as exhausted); one still in flight is refused as used.
  it("10 concurrent identical payments: exactly one is settled and charged; the others are refused or, once it settled, delivered the same read again", async () => {
    const before = await chain.balanceOf(payTo);
    for (let round = 0; round < 3; round++) {
      const kp = await payer(10_000n);
      const payment = await signedPayment(kp.secretKey, "/api/board/movers");
      const results = await Promise.all(Array.from({ length: 10 }, () => stack.paidGet("/api/board/movers", payment)));
      expect(purchases(results).length, `round ${round}`).toBe(1);
      for (const r of results.filter((r) => r.status !== 200)) expect(["payment_already_used", "payment_redelivery_exhausted"]).toContain(await refusal(r));
      expect(await chain.balanceOf(kp.address)).toBe(5_000n);
    }
    expect(await chain.balanceOf(payTo)).toBe(before + 3n * 5_000n);
  });

  it("refuses a payer without enough USDC as insufficient funds, and charges nothing", async () => {
    const kp = await payer(1_000n);
    const before = await chain.balanceOf(payTo);
    expect(await refusal(await stack.paidGet("/api/board/regime", await signedPayment(kp.secretKey, "/api/board/regime")))).toBe("payment_insufficient_funds");
    expect(await chain.balanceOf(kp.address)).toBe(1_000n);
    expect(await chain.balanceOf(payTo)).toBe(before);
  });

  it("refuses a payment made for another route at the same price", async () => {
    const kp = await payer(100_000n);
    const forIndices = await signedPayment(kp.secretKey, "/api/board/indices");
    expect(await refusal(await stack.paidGet("/api/board/regime", forIndices))).toBe("payment_route_mismatch");
    expect(await chain.balanceOf(kp.address)).toBe(100_000n);
  });

  it("refuses a payment whose blockhash has expired", async () => {
    const kp = await payer(5_000n);
    const payment = await signedPayment(kp.secretKey, "/api/board/regime");
    chain.advanceBlocks(151);
    expect(await refusal(await stack.paidGet("/api/board/regime", payment))).toBe("payment_expired");
    expect(await chain.balanceOf(kp.address)).toBe(5_000n);
  });
});

describe("reconciliation after a restart", () => {
  it("settles a claim whose transaction landed; leaves the other open while its blockhash lives, then releases it", async () => {
    const moved = await payer(5_000n);
    const stranded = await payer(5_000n);
    const movedPayment = await signedPayment(moved.secretKey, "/api/board/regime");
    const strandedPayment = await signedPayment(stranded.secretKey, "/api/board/regime");
    const claim = (value: string) => request(stack.nc, paymentsClaim, { path: "/api/board/regime", query: "", carrier: "payment-signature", value });
    const a = await claim(movedPayment);
    const b = await claim(strandedPayment);
    // The first one is co-signed and sent by the fee payer, as a settlement interrupted by a
    // stop after sending would have.
    const { payload } = JSON.parse(Buffer.from(movedPayment, "base64").toString()) as { payload: { transaction: string } };
    const signer = toFacilitatorSvmSigner(await createKeyPairSignerFromBytes(feePayer.secretKey), { defaultRpcUrl: chain.rpcUrl });
    const signed = await signer.signTransaction(payload.transaction, signer.getAddresses()[0]!, SOLANA_NETWORK);
    const tx = await signer.sendTransaction(signed, SOLANA_NETWORK);
    await signer.confirmTransaction(tx, SOLANA_NETWORK);
    expect(await chain.balanceOf(moved.address)).toBe(0n);

    await stack.stopPayments();
    await new Promise((r) => setTimeout(r, 1_100));
    await startPayments({ RECONCILE_AFTER_SECONDS: "1" });
    const claims = stack.payments!.claims;
    expect(await claims.get(a.claim_id)).toMatchObject({ state: "settled", transaction: tx });
    // Its blockhash is still valid: a send before the stop could still land it.
    expect(await claims.get(b.claim_id)).toMatchObject({ state: "claimed" });
    expect(await refusal(await stack.paidGet("/api/board/regime", strandedPayment))).toBe("payment_already_used");
    chain.advanceBlocks(151);
    expect(await stack.payments!.reconcile()).toMatchObject({ released: 1 });
    expect(await claims.get(b.claim_id)).toMatchObject({ state: "released" });
    expect(await refusal(await stack.paidGet("/api/board/regime", strandedPayment))).toBe("payment_expired");
    expect(await refusal(await stack.paidGet("/api/board/regime", movedPayment))).toBe("payment_already_used");
    expect(await chain.balanceOf(stranded.address)).toBe(5_000n);
  });
});
