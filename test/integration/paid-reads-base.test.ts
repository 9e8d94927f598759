import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { FullBoard } from "@board/proto";
import { createWalletClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { wrapFetchWithPayment as wrapFetchV1 } from "x402-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "./harness.js";

const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 6 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({
    PAY_TO_BASE: payTo,
    BASE_RPC_URL: chain.rpcUrl,
    BASE_FACILITATOR_KEY: chain.accounts[0] as Hex,
    PUBLIC_BASE_URL: "http://127.0.0.1:8080",
  });
  // Wait for the board to have the current snapshot.
  for (let i = 0; i < 100; i++) {
    const r = await fetch(`${stack.base}/api/board/status`);
    if (r.status === 200 && ((await r.json()) as { asof_daily: string }).asof_daily === "2026-11-20") break;
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
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
