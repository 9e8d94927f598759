import { registerBatchScheme } from "@circle-fin/x402-batching/client";
import { GATEWAY_BASE, startCircleGatewayStandIn, type CircleGatewayStandIn } from "@board/test-chains/circle-gateway";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import type { Hex, PrivateKeyAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purchases, Stack } from "./harness.js";

/**
 * Circle's batched rail against a stand-in of Circle's Gateway HTTP API (Circle's Gateway
 * cannot run offline). The buyer is Circle's own client (@circle-fin/x402-batching) under
 * @x402/fetch; verification and settlement go through Circle's BatchFacilitatorClient.
 */
const stack = new Stack();
let chain: EvmChain;
let gateway: CircleGatewayStandIn;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
const NETWORK = "eip155:8453";

beforeAll(async () => {
  chain = await startEvmChain();
  gateway = await startCircleGatewayStandIn();
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({
    PAY_TO_BASE: payTo,
    BASE_RPC_URL: chain.rpcUrl,
    BASE_FACILITATOR_KEY: chain.accounts[0] as Hex,
    PUBLIC_BASE_URL: "http://127.0.0.1:8080",
    CIRCLE_GATEWAY_URL: gateway.url,
  });
  await stack.untilServing();
}, 60_000);
afterAll(async () => {
  await stack.stop();
  await gateway?.stop();
  await chain?.stop();
});

function batchClient(account: PrivateKeyAccount) {
  // Circle's scheme knows no default assets: @x402/core's spend controls must list USDC.
  // SPEC.md 4.1 rule 5: a buyer of the batched rail selects the entry whose extra.name is GatewayWalletBatched.
  const client = new x402Client((_version, accepts) => accepts.find((a) => a.extra?.["name"] === "GatewayWalletBatched") ?? accepts[0]!).setSpendControls({ allowedAssets: [{ network: NETWORK, asset: GATEWAY_BASE.usdc, maxAmountPerPayment: "1000000" }] });
  registerBatchScheme(client, { signer: account, networks: [NETWORK] });
  return client;
}

function depositor(amount: bigint) {
  const account = privateKeyToAccount(generatePrivateKey());
  if (amount > 0n) gateway.deposit(account.address, amount);
  return account;
}

describe("Circle's batched rail (Gateway stand-in)", () => {
  it("offers the GatewayWalletBatched entry beside the plain Base offer", async () => {
    const res = await fetch(`${stack.base}/api/board/regime`);
    const pr = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    const batched = pr.accepts.find((a) => a.extra?.["name"] === "GatewayWalletBatched");
    expect(batched).toMatchObject({ scheme: "exact", network: NETWORK, amount: "5000", payTo });
    expect(pr.accepts.find((a) => a.network === NETWORK && a.extra?.["name"] === "USD Coin")).toBeTruthy();
  });

  it("Circle's client pays from its Gateway balance; the payee is credited by the Gateway, not on chain", async () => {
    const account = depositor(100_000n);
    const onChainBefore = await chain.balanceOf(payTo);
    const res = await wrapFetchWithPayment(fetch, batchClient(account))(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(200);
    const receipt = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(receipt).toMatchObject({ success: true, network: NETWORK });
    expect(gateway.balanceOf(account.address)).toBe(95_000n);
    expect(gateway.settlements().at(-1)).toMatchObject({ payTo, amount: 5000n });
    expect(await chain.balanceOf(payTo)).toBe(onChainBefore);
  });

  it("a batched payment buys one read (the same payment again is delivered again, not settled again); a payer without a Gateway balance is served nothing", async () => {
    const account = depositor(100_000n);
    const first = await fetch(`${stack.base}/api/board/movers`);
    const pr = decodePaymentRequiredHeader(first.headers.get("payment-required")!);
    pr.accepts = pr.accepts.filter((a) => a.extra?.["name"] === "GatewayWalletBatched");
    const payment = encodePaymentSignatureHeader(await batchClient(account).createPaymentPayload(pr));
    const results = await Promise.all(Array.from({ length: 10 }, () => fetch(`${stack.base}/api/board/movers`, { headers: { "payment-signature": payment } })));
    expect(purchases(results)).toHaveLength(1);
    const settled = gateway.settlements().length;
    const replay = await fetch(`${stack.base}/api/board/movers`, { headers: { "payment-signature": payment } });
    expect(replay.status).toBe(200);
    expect(Number(replay.headers.get("payment-redelivery"))).toBeGreaterThanOrEqual(1);

    const broke = depositor(0n);
    const refused = await wrapFetchWithPayment(fetch, batchClient(broke))(`${stack.base}/api/board/regime`);
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { error: string }).error).toBe("payment_insufficient_funds");
    expect(gateway.settlements().length).toBe(settled);
  });
});
