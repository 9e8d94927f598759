import { registerBatchScheme } from "@circle-fin/x402-batching/client";
import { BoardStatus, PaymentRails, paymentsStatus, type PaymentRails as Rails } from "@board/proto";
import { request } from "@board/service-kit";
import { freePort, TestNatsServer } from "@board/service-kit/testing";
import { startAlgodStandIn, type AlgodStandIn } from "@board/test-chains/avm";
import { GATEWAY_BASE, startCircleGatewayStandIn, type CircleGatewayStandIn } from "@board/test-chains/circle-gateway";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack, until } from "./harness.js";

/**
 * A rail whose backend does not answer at start does not stop payments: payments starts with
 * Circle's Gateway (its stand-in) not yet listening, offers every other rail, says `batched:
 * down`, and offers the batched rail once the Gateway answers, within the backoff. The stack
 * runs on a nats-server of this file's own, so no other file's payments answers for ours.
 */
const NETWORK = "eip155:8453";
/** The schedule under test: 100 ms doubling to 400 ms, no jitter. */
const RETRY = { RAIL_RETRY_INITIAL_MS: "100", RAIL_RETRY_MAX_MS: "400", RAIL_RETRY_JITTER: "0" };

const stack = new Stack();
let nats: TestNatsServer | null = null;
let chain: EvmChain;
let algod: AlgodStandIn;
let gateway: CircleGatewayStandIn | null = null;
/** Where payments expects Circle's Gateway; nothing listens there until the second test. */
let gatewayPort = 0;
const payTo = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  nats = await TestNatsServer.start();
  [chain, algod, gatewayPort] = await Promise.all([startEvmChain(), startAlgodStandIn({ accounts: 2 }), freePort()]);
  algod.optIn(algod.accounts[1]!.address);
  await stack.start({ natsUrl: nats.url, natsSeeds: nats.seeds });
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({
    PAYMENTS_MODE: "development",
    ...RETRY,
    PAY_TO_BASE: payTo,
    BASE_RPC_URL: chain.rpcUrl,
    BASE_FACILITATOR_KEY: chain.accounts[0] as Hex,
    MPP_SECRET_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url"),
    CIRCLE_GATEWAY_URL: `http://127.0.0.1:${gatewayPort}`,
    PAY_TO_ALGORAND: algod.accounts[1]!.address,
    ALGOD_URL: algod.url,
    ALGOD_TOKEN: algod.token,
    ALGORAND_FACILITATOR_MNEMONIC: algod.accounts[0]!.mnemonic,
  });
  await stack.untilServing();
}, 60_000);

afterAll(async () => {
  await stack.stop();
  await gateway?.stop();
  await algod?.stop();
  await chain?.stop();
  await nats?.stop();
});

/** The v2 offers of a paid route's 402, and whether it carries an MPP challenge. */
async function offers(routePath: string): Promise<{ pr: PaymentRequired; mpp: boolean }> {
  const res = await fetch(`${stack.base}${routePath}`);
  expect(res.status).toBe(402);
  return { pr: decodePaymentRequiredHeader(res.headers.get("payment-required")!), mpp: /^Payment /.test(res.headers.get("www-authenticate") ?? "") };
}

const batchedOffer = (pr: PaymentRequired) => pr.accepts.find((a) => a.extra?.["name"] === "GatewayWalletBatched");

const paymentsSays = () => request(stack.nc, paymentsStatus, {}, { timeoutMs: 2000 });

async function readyz(): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${stack.payments!.runtime.health.port}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Waits until the board's status view carries this payments block. */
async function boardSays(expected: Rails): Promise<void> {
  await until(async () => {
    const status = BoardStatus.parse(await (await fetch(`${stack.base}/api/board/status`)).json());
    // The rails as said (the block also carries the exposure of reads answered before their block).
    const said = status.payments && { mode: status.payments.mode, rails: status.payments.rails };
    return JSON.stringify(said) === JSON.stringify(expected);
  });
}

describe("a rail whose backend is away at start", () => {
  const down: Rails = { mode: "development", rails: { base: "live", solana: "off", algorand: "live", batched: "down", mpp: "live" } };

  it("does not stop payments: every other rail is offered, and status, readiness and the board say batched is down", async () => {
    const { pr, mpp } = await offers("/api/board/regime");
    expect(pr.accepts.find((a) => a.network === NETWORK && a.extra?.["name"] === "USD Coin")).toMatchObject({ amount: "5000", payTo });
    expect(pr.accepts.find((a) => a.network === algod.network)).toMatchObject({ amount: "5000" });
    expect(batchedOffer(pr)).toBeUndefined();
    expect(mpp).toBe(true);

    const status = await paymentsSays();
    expect(PaymentRails.parse({ mode: status.mode, rails: status.rails })).toEqual(down);

    // Ready: payments serves its bus endpoints; a rail down does not make it unready, and the body says so.
    const ready = await readyz();
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: "ready", checks: { nats: "ok", database: "ok", endpoints: "ok" }, ...down });
    expect(String(ready.body["note"])).toContain("does not make payments unready");

    await boardSays(down);
    // The landing page says no real money.
    await until(async () => (await (await fetch(`${stack.base}/`)).text()).includes('data-payments="development"'));
  });

  it("offers it, and says it live, within the backoff once its backend answers; a batched read can then be bought", async () => {
    expect((await paymentsSays()).rails.batched).toBe("down");
    gateway = await startCircleGatewayStandIn({ port: gatewayPort });
    const answering = Date.now();
    await until(async () => batchedOffer((await offers("/api/board/regime")).pr) !== undefined, 5000);
    // The longest wait of the schedule is 400 ms: one ask at most after the Gateway answers.
    expect(Date.now() - answering).toBeLessThan(2000);

    const live: Rails = { mode: "development", rails: { ...down.rails, batched: "live" } };
    const status = await paymentsSays();
    expect({ mode: status.mode, rails: status.rails }).toEqual(live);
    expect((await readyz()).body).toMatchObject(live);
    await boardSays(live);
    const { pr } = await offers("/api/board/movers");
    expect(batchedOffer(pr)).toMatchObject({ scheme: "exact", network: NETWORK, amount: "5000", payTo });

    // Bought with Circle's own client from a Gateway balance, as on a rail that was there from the start.
    const buyer = privateKeyToAccount(generatePrivateKey());
    gateway.deposit(buyer.address, 100_000n);
    const client = new x402Client((_v, accepts) => accepts.find((a) => a.extra?.["name"] === "GatewayWalletBatched") ?? accepts[0]!).setSpendControls({
      allowedAssets: [{ network: NETWORK, asset: GATEWAY_BASE.usdc, maxAmountPerPayment: "1000000" }],
    });
    registerBatchScheme(client, { signer: buyer, networks: [NETWORK] });
    const res = await wrapFetchWithPayment(fetch, client)(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get("payment-response")!)).toMatchObject({ success: true, network: NETWORK });
    expect(gateway.balanceOf(buyer.address)).toBe(95_000n);
  });
});
