import { supportsBatching } from "@circle-fin/x402-batching";
import { registerBatchScheme } from "@circle-fin/x402-batching/client";
import { BatchFacilitatorClient, GatewayEvmScheme } from "@circle-fin/x402-batching/server";
import { x402Client } from "@x402/core/client";
import { x402ResourceServer, type FacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { getAddress, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GATEWAY_BASE,
  GATEWAY_MIN_VALIDITY_SECONDS,
  startCircleGatewayStandIn,
  type CircleGatewayStandIn,
} from "../src/circle-gateway/index.js";

const NETWORK = "eip155:8453";
const PRICE = 5000n;
const RESOURCE = { url: "http://board.test/v1/board", description: "board read", mimeType: "application/json" };

let standIn: CircleGatewayStandIn;
let facilitator: BatchFacilitatorClient;
let gateway: Gateway;
let resourceServer: x402ResourceServer;
/** The batched accepts entry, built by the library's server helpers from /v1/x402/supported. */
let requirements: PaymentRequirements;
let payer: PrivateKeyAccount;
let payee: PrivateKeyAccount;

beforeAll(async () => {
  const started = performance.now();
  standIn = await startCircleGatewayStandIn();
  facilitator = new BatchFacilitatorClient({ url: standIn.url });
  gateway = typed(facilitator);
  resourceServer = new x402ResourceServer(facilitator as FacilitatorClient).register(NETWORK, new GatewayEvmScheme());
  await resourceServer.initialize();
  payer = privateKeyToAccount(generatePrivateKey());
  payee = privateKeyToAccount(generatePrivateKey());
  standIn.deposit(payer.address, 1_000_000n);
  [requirements] = (await resourceServer.buildPaymentRequirements({
    scheme: "exact",
    network: NETWORK,
    payTo: payee.address,
    price: "$0.005",
  })) as [PaymentRequirements];
  console.info(`Circle Gateway stand-in started and server initialized in ${(performance.now() - started).toFixed(0)} ms`);
});

afterAll(async () => {
  await standIn?.stop();
});

/** What a buyer's x402 client sends: the library's BatchEvmScheme under @x402/core's x402Client. */
async function pay(account: PrivateKeyAccount, accepts: PaymentRequirements = requirements): Promise<PaymentPayload> {
  // BatchEvmScheme knows no default assets, so @x402/core's spend controls need USDC listed.
  const client = new x402Client().setSpendControls({
    allowedAssets: [{ network: NETWORK, asset: GATEWAY_BASE.usdc, maxAmountPerPayment: "1000000" }],
  });
  registerBatchScheme(client, { signer: account, networks: [NETWORK] });
  const paymentRequired = await resourceServer.createPaymentRequiredResponse([accepts], RESOURCE);
  return client.createPaymentPayload(paymentRequired);
}

/**
 * BatchFacilitatorClient's own PaymentPayload type wants resource.description; @x402/core 2.27
 * makes it optional. Same wire shape, so the payload is passed through as the library's type.
 */
type GatewayPayload = Parameters<BatchFacilitatorClient["verify"]>[0];
type Gateway = ReturnType<typeof typed>;
function typed(client: BatchFacilitatorClient) {
  return {
    verify: (payload: PaymentPayload, accepts: PaymentRequirements) => client.verify(payload as GatewayPayload, accepts),
    settle: (payload: PaymentPayload, accepts: PaymentRequirements) => client.settle(payload as GatewayPayload, accepts),
  };
}

function authorizationOf(payload: PaymentPayload): Record<string, string> {
  return (payload.payload as { authorization: Record<string, string> }).authorization;
}

describe("Circle Gateway stand-in, driven by @circle-fin/x402-batching", () => {
  it("builds the GatewayWalletBatched requirement from /v1/x402/supported", () => {
    expect(supportsBatching(requirements)).toBe(true);
    expect(requirements).toMatchObject({
      scheme: "exact",
      network: NETWORK,
      amount: PRICE.toString(),
      asset: GATEWAY_BASE.usdc,
      payTo: payee.address,
      maxTimeoutSeconds: GATEWAY_MIN_VALIDITY_SECONDS + 100,
      extra: {
        name: "GatewayWalletBatched",
        version: "1",
        verifyingContract: GATEWAY_BASE.gatewayWallet.toLowerCase(),
      },
    });
  });

  it("verifies and settles a client payment, crediting the payee by the price", async () => {
    const signStart = performance.now();
    const payload = await pay(payer);
    const signMs = performance.now() - signStart;
    expect(authorizationOf(payload)).toMatchObject({ from: payer.address, to: payee.address, value: "5000" });
    const payeeBefore = standIn.balanceOf(payee.address);
    const payerBefore = standIn.balanceOf(payer.address);

    const verifyStart = performance.now();
    const verified = await gateway.verify(payload, requirements);
    const verifyMs = performance.now() - verifyStart;
    expect(verified).toEqual({ isValid: true, payer: payer.address });

    const settleStart = performance.now();
    const settled = await gateway.settle(payload, requirements);
    const settleMs = performance.now() - settleStart;
    expect(settled).toEqual({ success: true, transaction: expect.stringMatching(/^[0-9a-f-]{36}$/), network: NETWORK, payer: payer.address });

    expect(standIn.balanceOf(payee.address) - payeeBefore).toBe(PRICE);
    expect(payerBefore - standIn.balanceOf(payer.address)).toBe(PRICE);
    expect(standIn.settlements().at(-1)).toMatchObject({ id: settled.transaction, payer: payer.address, payTo: payee.address, amount: PRICE });
    console.info(`sign ${signMs.toFixed(1)} ms, verify ${verifyMs.toFixed(1)} ms, settle ${settleMs.toFixed(1)} ms`);
  });

  it("routes through x402ResourceServer.verifyPayment/settlePayment too", async () => {
    const payload = await pay(payer);
    const before = standIn.balanceOf(payee.address);
    expect(await resourceServer.verifyPayment(payload, requirements)).toMatchObject({ isValid: true, payer: payer.address });
    expect(await resourceServer.settlePayment(payload, requirements)).toMatchObject({ success: true, network: NETWORK });
    expect(standIn.balanceOf(payee.address) - before).toBe(PRICE);
  });

  it("refuses a second settle of the same payload", async () => {
    const payload = await pay(payer);
    expect((await gateway.settle(payload, requirements)).success).toBe(true);
    const count = standIn.settlements().length;
    const payeeBalance = standIn.balanceOf(payee.address);

    // Verify is read-only (Circle checks nonces at settle time), so it still passes.
    expect((await gateway.verify(payload, requirements)).isValid).toBe(true);
    expect(await gateway.settle(payload, requirements)).toEqual({
      success: false,
      errorReason: "nonce_already_used",
      transaction: "",
      network: NETWORK,
      payer: payer.address,
    });
    expect(standIn.settlements()).toHaveLength(count);
    expect(standIn.balanceOf(payee.address)).toBe(payeeBalance);
  });

  it("settles concurrent submissions of one payload once", async () => {
    const payload = await pay(payer);
    const results = await Promise.all(Array.from({ length: 5 }, () => gateway.settle(payload, requirements)));
    expect(results.filter((r) => r.success)).toHaveLength(1);
    expect(results.filter((r) => !r.success).map((r) => r.errorReason)).toEqual(Array(4).fill("nonce_already_used"));
  });

  it("refuses an amount tampered with after signing", async () => {
    const payload = await pay(payer);
    const tampered = structuredClone(payload);
    authorizationOf(tampered).value = "50000";
    const raised = { ...requirements, amount: "50000" };
    const count = standIn.settlements().length;

    expect(await gateway.verify(tampered, raised)).toEqual({ isValid: false, invalidReason: "invalid_signature", payer: payer.address });
    expect(await gateway.settle(tampered, raised)).toMatchObject({ success: false, errorReason: "invalid_signature", transaction: "" });
    expect(standIn.settlements()).toHaveLength(count);
  });

  it("refuses a payer without a Gateway deposit at settle time", async () => {
    const broke = privateKeyToAccount(generatePrivateKey());
    const payload = await pay(broke);
    const count = standIn.settlements().length;

    expect(await gateway.verify(payload, requirements)).toEqual({ isValid: true, payer: broke.address });
    expect(await gateway.settle(payload, requirements)).toEqual({
      success: false,
      errorReason: "insufficient_balance",
      transaction: "",
      network: NETWORK,
      payer: broke.address,
    });
    expect(standIn.settlements()).toHaveLength(count);
    expect(standIn.balanceOf(broke.address)).toBe(0n);
  });

  it("refuses a payment signed for another amount or recipient than required", async () => {
    const payload = await pay(payer);
    expect(await gateway.verify(payload, { ...requirements, amount: "6000" })).toMatchObject({ isValid: false, invalidReason: "amount_mismatch" });
    const other = privateKeyToAccount(generatePrivateKey()).address;
    expect(await gateway.settle(payload, { ...requirements, payTo: other })).toMatchObject({ success: false, errorReason: "address_mismatch" });
    expect(await gateway.verify(payload, { ...requirements, asset: "0x0000000000000000000000000000000000000001" })).toMatchObject({
      isValid: false,
      invalidReason: "unsupported_asset",
    });
    expect(await gateway.verify(payload, { ...requirements, network: "eip155:1" })).toMatchObject({ isValid: false, invalidReason: "unsupported_network" });
  });

  it("refuses a signature over another GatewayWallet domain", async () => {
    const elsewhere = { ...requirements, extra: { ...requirements.extra, verifyingContract: "0x0077777d7EBA4688BDeF3E311b846F25870A19B9" } };
    const payload = await pay(payer, elsewhere);
    expect(await gateway.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: "invalid_signature" });
  });

  it("throws on a malformed envelope (400), as BatchFacilitatorClient reports Gateway errors", async () => {
    const payload = await pay(payer);
    await expect(gateway.verify(payload, null as unknown as PaymentRequirements)).rejects.toThrow(/Circle Gateway verify failed \(400\)/);
  });

  it("answers /v1/balances in decimal USDC", async () => {
    const res = await fetch(`${standIn.url}/v1/balances`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: "USDC", sources: [{ depositor: payee.address, domain: GATEWAY_BASE.domain }] }),
    });
    const body = (await res.json()) as { balances: { balance: string; depositor: Address }[] };
    expect(res.status).toBe(200);
    expect(body.balances).toHaveLength(1);
    expect(getAddress(body.balances[0]!.depositor)).toBe(payee.address);
    expect(BigInt(Math.round(Number(body.balances[0]!.balance) * 1e6))).toBe(standIn.balanceOf(payee.address));
  });

  it("measures verify and settle latency", async () => {
    const runs = 30;
    const payloads = await Promise.all(Array.from({ length: runs }, () => pay(payer)));
    const verifyMs: number[] = [];
    const settleMs: number[] = [];
    for (const payload of payloads) {
      let t = performance.now();
      expect((await gateway.verify(payload, requirements)).isValid).toBe(true);
      verifyMs.push(performance.now() - t);
      t = performance.now();
      expect((await gateway.settle(payload, requirements)).success).toBe(true);
      settleMs.push(performance.now() - t);
    }
    console.info(`over ${runs} payments: verify ${summary(verifyMs)}; settle ${summary(settleMs)}`);
  });
});

describe("Circle Gateway stand-in validity window", () => {
  let clock = Math.floor(Date.now() / 1000);
  let timed: CircleGatewayStandIn;
  let timedGateway: Gateway;

  beforeAll(async () => {
    timed = await startCircleGatewayStandIn({ now: () => clock, requiredHeaders: { authorization: "Bearer test-key" } });
    timedGateway = typed(new BatchFacilitatorClient({ url: timed.url, headers: { authorization: "Bearer test-key" } }));
    timed.deposit(payer.address, 1_000_000n);
  });

  afterAll(async () => {
    await timed?.stop();
  });

  it("refuses an authorization with too little validity left, or expired", async () => {
    const payload = await pay(payer);
    clock += 200; // the client's 100 s buffer is used up
    expect(await timedGateway.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: "authorization_validity_too_short" });
    clock += GATEWAY_MIN_VALIDITY_SECONDS;
    expect(await timedGateway.settle(payload, requirements)).toMatchObject({ success: false, errorReason: "authorization_expired" });
    clock -= GATEWAY_MIN_VALIDITY_SECONDS + 200 + 3600; // before validAfter (signing time - 600 s)
    expect(await timedGateway.verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: "authorization_not_yet_valid" });
    clock += 3600;
    expect((await timedGateway.settle(payload, requirements)).success).toBe(true);
  });

  it("refuses requests without the configured headers", async () => {
    const bare = new BatchFacilitatorClient({ url: timed.url });
    await expect(bare.getSupported()).rejects.toThrow(/\(401\)/);
  });
});

function summary(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`;
}
