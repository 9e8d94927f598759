import { randomBytes } from "node:crypto";
import { eip3009TokenAbi, startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { paymentsRequirements, type Delivery } from "@board/proto";
import { request } from "@board/service-kit";
import { busEnv, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { sql } from "drizzle-orm";
import { connect, type NatsConnection } from "nats";
import { createPublicClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaymentsEnv } from "../../src/env.js";
import { startPayments, type PaymentsService } from "../../src/start.js";

/**
 * A batched payment claimed here joins its batch while its claim records the read
 * (ClaimDesk.settleRecording): it goes on chain only if the record found the claim open.
 */
const infra = testInfra();
const PATH = "/api/board/regime";
const PRICE = 5000n;
let chain: EvmChain;
let db: TestDatabase;
let payments: PaymentsService;
let nc: NatsConnection;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
// Only stored and read back by payments; the board renders it on a redelivery.
const delivery = { snapshot: "s".repeat(64), freshness: { test: true }, encoding: "identity" } as unknown as Delivery;

async function signedPayment(): Promise<{ value: string; payload: PaymentPayload }> {
  const reply = await request(nc, paymentsRequirements, { path: PATH });
  const header = Object.entries(reply.headers).find(([k]) => k.toLowerCase() === "payment-required")?.[1];
  if (!header) throw new Error("no PAYMENT-REQUIRED in the 402");
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.mint(account.address, PRICE);
  const payload = await new x402Client().register("eip155:*", new ExactEvmScheme(account)).createPaymentPayload(decodePaymentRequiredHeader(header));
  return { value: encodePaymentSignatureHeader(payload), payload };
}

const authorizationOf = (p: PaymentPayload) => (p.payload as { authorization: { from: Hex; nonce: Hex } }).authorization;

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 1 });
  db = await freshDatabase(infra.databaseUrl);
  payments = await startPayments(
    PaymentsEnv.parse({
      ...busEnv("payments"),
      DATABASE_URL: db.url,
      HEALTH_PORT: 0,
      // No identity service here: its "no sign-in challenge" warning is expected.
      LOG_LEVEL: "error",
      PAY_TO_BASE: payTo,
      BASE_RPC_URL: chain.rpcUrl,
      BASE_FACILITATOR_KEY: chain.accounts[0],
      BASE_USDC_ADDRESS: chain.usdc,
      RECEIPT_SECRET: randomBytes(32).toString("base64url"),
    }),
  );
  nc = await connect(testBusOptions());
}, 60_000);
afterAll(async () => {
  await nc?.close();
  await payments?.stop();
  await db?.drop();
  await chain?.stop();
});

describe("a batched settlement recorded while it waits for its batch", () => {
  it("served: the read is recorded on the claim, the claim settled with the batch's transaction, payTo paid once", async () => {
    const { value } = await signedPayment();
    const claim = await payments.desk.claim({ path: PATH, query: "", carrier: "payment-signature", value });
    const settled = await payments.desk.settle(claim.claim_id, delivery);
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const row = await payments.claims.get(claim.claim_id);
    expect(row).toMatchObject({ state: "settled", transaction: settled.transaction, delivery });
    expect(await chain.balanceOf(payTo)).toBe(PRICE);
  });

  it("released by another replica before its settlement came here: refused as not open, nothing sent, the authorization unused", async () => {
    const { value, payload } = await signedPayment();
    const claim = await payments.desk.claim({ path: PATH, query: "", carrier: "payment-signature", value });
    // Another replica (the same table) released it: this replica still holds the claim it made.
    await payments.runtime.database!.db.execute(sql`update payments.claims set state = 'released' where id = ${claim.claim_id}`);
    const rpc = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
    const facilitator = privateKeyToAccount(chain.accounts[0] as Hex).address;
    const nonce = await rpc.getTransactionCount({ address: facilitator });
    const before = await chain.balanceOf(payTo);
    await expect(payments.desk.settle(claim.claim_id, delivery)).rejects.toMatchObject({ code: "payment_already_used" });
    const { from, nonce: authNonce } = authorizationOf(payload);
    expect(await rpc.readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "authorizationState", args: [from, authNonce] })).toBe(false);
    expect(await rpc.getTransactionCount({ address: facilitator })).toBe(nonce);
    expect(await chain.balanceOf(payTo)).toBe(before);
    expect(await payments.claims.get(claim.claim_id)).toMatchObject({ state: "released", delivery: null });
  });
});
