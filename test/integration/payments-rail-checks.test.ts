import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { BoardStatus, paymentsStatus, pingEndpoint, type PaymentRails } from "@board/proto";
import { request } from "@board/service-kit";
import { freePort, killHard } from "@board/service-kit/testing";
import { startCircleGatewayStandIn, type CircleGatewayStandIn } from "@board/test-chains/circle-gateway";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { Receipt } from "mppx";
import { Mppx } from "mppx/client";
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchGasLimit } from "../../services/payments/src/settlement/base-batch-chain.js";
import { settlementCost } from "../../services/payments/src/settlement/facilitator-gas.js";
import { usdcClientMethod } from "../../services/payments/test/support/mpp-usdc-client.js";
import { Stack, until } from "./harness.js";

// What payments checks of its rails when it starts and when a rail comes back (the issue: a
// Base RPC whose chain has no Multicall3 made every paid read a 503 "settlement not sent"),
// against real local chains a misconfigured BASE_RPC_URL may serve: no Multicall3 (settled
// one transaction per payment), a token signing in another EIP-712 domain, another chain id,
// and a facilitator without the ETH to pay for one batch, or with less than its floor.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NETWORK = "eip155:8453";
/** Rails down are asked again quickly here: 100 ms doubling to 400 ms, no jitter. */
const RETRY = { RAIL_RETRY_INITIAL_MS: "100", RAIL_RETRY_MAX_MS: "400", RAIL_RETRY_JITTER: "0" };
const MPP_SECRET_KEY = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
const figures: Record<string, unknown> = {};

const stack = new Stack();
const chains: EvmChain[] = [];
let gateway: CircleGatewayStandIn;
let child: ChildProcess | null = null;
const payTo = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  gateway = await startCircleGatewayStandIn();
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.untilServing();
}, 60_000);

afterAll(async () => {
  if (child) await killHard(child);
  await stack.stop();
  await gateway?.stop();
  await Promise.all(chains.map((c) => c.stop()));
  console.info(`payments-rail-checks figures: ${JSON.stringify(figures)}`);
});

async function chainWith(opts: Parameters<typeof startEvmChain>[0] = {}): Promise<EvmChain> {
  const chain = await startEvmChain({ accounts: 2, ...opts });
  chains.push(chain);
  return chain;
}

const baseEnv = (chain: EvmChain, extra: Record<string, string> = {}) => ({
  PAYMENTS_MODE: "development",
  ...RETRY,
  PAY_TO_BASE: payTo,
  BASE_RPC_URL: chain.rpcUrl,
  BASE_FACILITATOR_KEY: chain.accounts[0] as Hex,
  MPP_SECRET_KEY,
  ...extra,
});

/** Payments (in this process) on `env`; the previous one stopped first. */
async function startPayments(env: Record<string, string>, facilitatorGasWatchMs?: number) {
  await stack.stopPayments();
  const started = performance.now();
  await stack.startPayments(env, facilitatorGasWatchMs === undefined ? {} : { facilitatorGasWatchMs });
  return Math.round(performance.now() - started);
}

const paymentsSays = async (): Promise<PaymentRails> => {
  // Parsed: the reply, with the rails' reasons, warnings and settlement, is valid against its proto schema.
  const { mode, rails, reasons, warnings, settlement } = paymentsStatus.reply.parse(await request(stack.nc, paymentsStatus, {}, { timeoutMs: 2000 }));
  return { mode, rails, ...(reasons && { reasons }), ...(warnings && { warnings }), ...(settlement && { settlement }) };
};

/** /readyz's status and what it says of the rails. */
async function readyz(port = stack.payments!.runtime.health.port): Promise<Record<string, unknown>> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  expect(res.status).toBe(200);
  const { status, mode, rails, reasons, warnings, settlement } = (await res.json()) as Record<string, unknown>;
  return { status, mode, rails, reasons, warnings, settlement };
}

/** The facilitator's balance as payments' /metrics says it. */
async function balanceGauge(port = stack.payments!.runtime.health.port): Promise<number> {
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = metrics.split("\n").map((l) => /^payments_facilitator_balance_wei\{[^}]*network="([^"]+)"[^}]*\} (\S+)$/.exec(l)).find((m) => m?.[1] === NETWORK)?.[2];
  return Number(value);
}

/** Waits until the board's status view carries these rails (the payments block as payments said it). */
async function boardSays(expected: Partial<PaymentRails>): Promise<void> {
  let said: unknown = null;
  await until(async () => {
    const status = BoardStatus.parse(await (await fetch(`${stack.base}/api/board/status`)).json());
    said = status.payments && { rails: status.payments.rails, reasons: status.payments.reasons, warnings: status.payments.warnings, settlement: status.payments.settlement };
    return isDeepStrictEqual(said, { rails: expected.rails, reasons: expected.reasons, warnings: expected.warnings, settlement: expected.settlement });
  }).catch(() => {
    throw new Error(`the board says ${JSON.stringify(said)}, not ${JSON.stringify(expected)}`);
  });
}

/** A paid route's 402: its v2 offers, its v1 body's networks, and whether it carries an MPP challenge. */
async function offers(path = "/api/board/regime"): Promise<{ pr: PaymentRequired; v1: string[]; mpp: boolean }> {
  const res = await fetch(`${stack.base}${path}`);
  expect(res.status).toBe(402);
  const body = (await res.json()) as { accepts: { network: string }[] };
  return { pr: decodePaymentRequiredHeader(res.headers.get("payment-required")!), v1: body.accepts.map((a) => a.network), mpp: /^Payment /.test(res.headers.get("www-authenticate") ?? "") };
}
const baseOffer = (pr: PaymentRequired) => pr.accepts.find((a) => a.network === NETWORK && a.extra?.["name"] === "USD Coin");
const batchedOffer = (pr: PaymentRequired) => pr.accepts.find((a) => a.extra?.["name"] === "GatewayWalletBatched");

function buyer(chain: EvmChain) {
  const account = privateKeyToAccount(generatePrivateKey());
  const pay = wrapFetchWithPayment(fetch, new x402Client().register("eip155:*", new ExactEvmScheme(account)));
  return { account, pay, fund: (usdc: bigint) => chain.mint(account.address, usdc) };
}

const RAILS_OFF = { solana: "off", algorand: "off" } as const;

describe("a Base chain without Multicall3", () => {
  let chain: EvmChain;

  beforeAll(async () => {
    chain = await chainWith({ multicall3: false });
    figures.start_ms_no_multicall3 = await startPayments(baseEnv(chain));
  }, 60_000);

  it("Base and MPP are live and settle unbatched, said in status, /readyz and the board's status view", async () => {
    const expected: PaymentRails = {
      mode: "development",
      rails: { base: "live", ...RAILS_OFF, batched: "off", mpp: "live" },
      reasons: {},
      warnings: { base: ["multicall3_missing"], mpp: ["multicall3_missing"] },
      settlement: { base: "unbatched", mpp: "unbatched" },
    };
    expect(await paymentsSays()).toEqual(expected);
    expect(await readyz()).toEqual({ status: "ready", ...expected });
    await boardSays(expected);
    const { pr, mpp } = await offers();
    expect(baseOffer(pr)).toMatchObject({ amount: "5000", payTo });
    expect(mpp).toBe(true);
  });

  it("paid reads succeed, each settled by a transaction of its own straight to the token: x402 (v2, concurrently) and MPP", async () => {
    const before = await chain.balanceOf(payTo);
    const buyers = Array.from({ length: 4 }, () => buyer(chain));
    for (const b of buyers) await b.fund(100_000n);
    const started = performance.now();
    const answers = await Promise.all(buyers.map((b) => b.pay(`${stack.base}/api/board/regime`)));
    figures.unbatched_4_concurrent_reads_ms = Math.round(performance.now() - started);
    const hashes: Hex[] = [];
    for (const res of answers) {
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const receipt = decodePaymentResponseHeader(res.headers.get("payment-response")!);
      expect(receipt).toMatchObject({ success: true, network: NETWORK });
      hashes.push(receipt.transaction as Hex);
    }
    expect(new Set(hashes).size).toBe(4);
    const rpc = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
    for (const hash of hashes) expect((await rpc.getTransaction({ hash })).to?.toLowerCase()).toBe(chain.usdc.toLowerCase());

    const mppBuyer = privateKeyToAccount(generatePrivateKey());
    await chain.mint(mppBuyer.address, 100_000n);
    const res = await Mppx.create({ methods: [usdcClientMethod(mppBuyer)], polyfill: false }).fetch(`${stack.base}/api/board/movers`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const mppTx = Receipt.deserialize(res.headers.get("payment-receipt")!).reference as Hex;
    expect((await rpc.getTransaction({ hash: mppTx })).to?.toLowerCase()).toBe(chain.usdc.toLowerCase());
    expect(await chain.balanceOf(payTo)).toBe(before + 4n * 5_000n + 5_000n);
  });

  it("/metrics shows the facilitator's balance", async () => {
    expect(await balanceGauge()).toBeGreaterThan(1e20);
  });
});

describe("a token whose EIP-712 domain is not the one the offers tell buyers to sign (a payments process of its own, its log read)", () => {
  let chain: EvmChain;
  let healthPort = 0;
  const lines: Record<string, unknown>[] = [];
  let output = "";

  beforeAll(async () => {
    chain = await chainWith({ usdcDomain: { name: "USDC", version: "2" } });
    await stack.stopPayments();
    healthPort = await freePort();
    const env = baseEnv(chain, { CIRCLE_GATEWAY_URL: gateway.url });
    const started = performance.now();
    child = spawn(process.execPath, ["--import", "tsx", "services/payments/src/main.ts"], {
      cwd: ROOT,
      env: { ...stack.busEnv("payments"), DATABASE_URL: stack.databaseUrl, HEALTH_PORT: String(healthPort), LOG_LEVEL: "info", LOG_FORMAT: "json", PUBLIC_BASE_URL: stack.base, RECEIPT_SECRET: stack.receiptSecret, INSTANCE_ID: "payments-checks", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
    await until(async () => {
      if (child?.exitCode !== null) throw new Error(`payments exited: ${output.slice(-2000)}`);
      return request(stack.nc, pingEndpoint("payments"), {}, { timeoutMs: 500 }).then(
        (r) => r.instance === "payments-checks",
        () => false,
      );
    }, 45_000);
    figures.process_start_ms_domain_mismatch = Math.round(performance.now() - started);
    for (const line of output.split("\n")) if (line.startsWith("{")) lines.push(JSON.parse(line) as Record<string, unknown>);
  }, 60_000);

  afterAll(async () => {
    if (child) await killHard(child);
    child = null;
  });

  const expected: PaymentRails = {
    mode: "development",
    rails: { base: "down", ...RAILS_OFF, batched: "live", mpp: "down" },
    reasons: { base: "token_domain_mismatch", mpp: "token_domain_mismatch" },
    warnings: {},
    settlement: {},
  };

  it("Base and MPP are down at start with token_domain_mismatch in status, /readyz and the board's status view; the batched rail is live", async () => {
    expect(await paymentsSays()).toEqual(expected);
    expect(await readyz(healthPort)).toEqual({ status: "ready", ...expected });
    await boardSays(expected);
  });

  it("its 402s offer neither Base nor MPP: only the rail that can be paid", async () => {
    for (const path of ["/api/board/regime", "/api/board/agent"]) {
      const { pr, v1, mpp } = await offers(path);
      expect(baseOffer(pr)).toBeUndefined();
      expect(batchedOffer(pr)).toMatchObject({ network: NETWORK, payTo });
      expect(pr.accepts).toHaveLength(1);
      expect(v1).not.toContain("base");
      expect(mpp).toBe(false);
    }
  });

  it("says so at start in one clear line per rail, with what the token reports and what the offers say; no key, no RPC URL", async () => {
    const down = lines.filter((l) => l["state"] === "down");
    expect(down.map((l) => l["rail"]).sort()).toEqual(["base", "mpp"]);
    for (const l of down) {
      expect(l).toMatchObject({ level: 40, reason: "token_domain_mismatch", by: "eip712Domain", token_name: "USDC", offer_name: "USD Coin", usdc: chain.usdc });
      expect(String(l["msg"])).toContain("another EIP-712 domain than the offers tell buyers to sign");
    }
    expect(lines.find((l) => l["msg"] === "payment rails at start")).toMatchObject({ reasons: expected.reasons });
    const key = (chain.accounts[0] as string).slice(2);
    expect(output).not.toContain(key);
    expect(output).not.toContain(chain.rpcUrl.replace(/\/$/, ""));
  });
});

describe("a Base RPC serving another chain", () => {
  it("Base and MPP are down with network_mismatch; nothing of them is offered", async () => {
    const chain = await chainWith({ chainId: 84532 });
    await startPayments(baseEnv(chain));
    const expected: PaymentRails = {
      mode: "development",
      rails: { base: "down", ...RAILS_OFF, batched: "off", mpp: "down" },
      reasons: { base: "network_mismatch", mpp: "network_mismatch" },
      warnings: {},
      settlement: {},
    };
    expect(await paymentsSays()).toEqual(expected);
    expect(await readyz()).toEqual({ status: "ready", ...expected });
    await boardSays(expected);
    const { pr, mpp } = await offers();
    expect(pr.accepts).toEqual([]);
    expect(mpp).toBe(false);
  });
});

describe("the facilitator's gas", () => {
  let chain: EvmChain;
  let funder: ReturnType<typeof createWalletClient>;
  let rpc: ReturnType<typeof createPublicClient>;
  const facilitatorKey = generatePrivateKey();
  const facilitator = privateKeyToAccount(facilitatorKey);

  beforeAll(async () => {
    chain = await chainWith();
    funder = createWalletClient({ account: privateKeyToAccount(chain.accounts[1] as Hex), chain: chain.chain, transport: http(chain.rpcUrl) });
    rpc = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
  }, 60_000);

  const send = async (value: bigint) => {
    const hash = await funder.sendTransaction({ account: funder.account!, chain: chain.chain, to: facilitator.address, value });
    await rpc.waitForTransactionReceipt({ hash });
  };

  it("none: Base and MPP are down with facilitator_cannot_pay_fees; funded, they come back within the backoff (the check asked again) and a read is bought", async () => {
    expect(await rpc.getBalance({ address: facilitator.address })).toBe(0n);
    await startPayments(baseEnv(chain, { BASE_FACILITATOR_KEY: facilitatorKey }));
    expect(await paymentsSays()).toMatchObject({ rails: { base: "down", mpp: "down" }, reasons: { base: "facilitator_cannot_pay_fees", mpp: "facilitator_cannot_pay_fees" } });
    expect((await offers()).pr.accepts).toEqual([]);

    await send(parseEther("10"));
    const funded = Date.now();
    await until(async () => (await paymentsSays()).rails.base === "live", 10_000);
    figures.live_after_funding_ms = Date.now() - funded;
    expect(await paymentsSays()).toMatchObject({ rails: { base: "live", mpp: "live" }, reasons: {}, warnings: {}, settlement: { base: "batched", mpp: "batched" } });
    const b = buyer(chain);
    await b.fund(100_000n);
    const res = await b.pay(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it("below the floor: live, warned in status and /metrics; drained while offered, taken down at the next reading; funded, live again", async () => {
    // 10 ETH from the test before, under a floor of 100 ETH: enough for batches, warned.
    await startPayments(baseEnv(chain, { BASE_FACILITATOR_KEY: facilitatorKey, BASE_FACILITATOR_LOW_BALANCE_ETH: "100" }), 200);
    expect(await paymentsSays()).toMatchObject({
      rails: { base: "live", mpp: "live" },
      warnings: { base: ["facilitator_balance_low"], mpp: ["facilitator_balance_low"] },
    });
    await boardSays(await paymentsSays());
    const balance = await rpc.getBalance({ address: facilitator.address });
    expect(await balanceGauge()).toBe(Number(balance));

    // The facilitator spends nearly all it has elsewhere: what is left pays for a quarter of a full batch.
    const wallet = createWalletClient({ account: facilitator, chain: chain.chain, transport: http(chain.rpcUrl) });
    const gasPrice = await rpc.getGasPrice();
    const left = settlementCost(batchGasLimit(32), gasPrice) / 4n;
    const maxFeePerGas = 2n * gasPrice;
    const hash = await wallet.sendTransaction({ to: payTo, value: balance - 21_000n * maxFeePerGas - left, gas: 21_000n, maxFeePerGas, maxPriorityFeePerGas: 1n });
    await rpc.waitForTransactionReceipt({ hash });
    const drained = Date.now();
    await until(async () => (await paymentsSays()).rails.base === "down", 10_000);
    figures.down_after_draining_ms = Date.now() - drained;
    expect(await paymentsSays()).toMatchObject({ rails: { base: "down", mpp: "down" }, reasons: { base: "facilitator_cannot_pay_fees", mpp: "facilitator_cannot_pay_fees" } });
    expect((await offers()).pr.accepts).toEqual([]);

    await send(parseEther("1"));
    await until(async () => (await paymentsSays()).rails.base === "live", 10_000);
    expect(await paymentsSays()).toMatchObject({ rails: { base: "live", mpp: "live" }, warnings: { base: ["facilitator_balance_low"] } });
    expect(baseOffer((await offers()).pr)).toBeDefined();
  });
});
