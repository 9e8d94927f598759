import { randomBytes } from "node:crypto";
import { createPublicClient, createWalletClient, encodeFunctionData, http, parseEventLogs, toHex, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizationTypes } from "@x402/evm";
import { BASE_USDC_ADDRESS, eip3009TokenAbi, MULTICALL3_ADDRESS, multicall3Abi, startAnvilChain, type EvmChain } from "../src/evm/index.js";
import { nextBlock as nextBlockOf } from "./next-block.js";

// Foundry's anvil (npm @foundry-rs/anvil) as a local chain of its own process: set up as EDR's
// (evm.test.ts), on an interval of whole seconds, counted through its proxy.
const INTERVAL_MS = 1000;
const holder = privateKeyToAccount(generatePrivateKey());
const payee = privateKeyToAccount(generatePrivateKey()).address;
const counted: Record<string, number> = {};
let chain: EvmChain;
let client: PublicClient;
let startupMs: number;

beforeAll(async () => {
  const started = performance.now();
  chain = await startAnvilChain({
    accounts: 2,
    blockIntervalMs: INTERVAL_MS,
    mints: [{ to: holder.address, amount: 9_000_000n }],
    onRequest: (method) => void (counted[method] = (counted[method] ?? 0) + 1),
  });
  startupMs = performance.now() - started;
  client = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl), pollingInterval: 25 });
}, 30_000);

afterAll(async () => {
  await chain?.stop();
});

const nextBlock = () => nextBlockOf(client, INTERVAL_MS);

describe("startAnvilChain", () => {
  it("is Base's chain id with the token at the USDC address, Multicall3 and the minted USDC, set up at once", async () => {
    expect(startupMs).toBeLessThan(15_000);
    expect(await client.getChainId()).toBe(8453);
    expect(chain.usdc).toBe(BASE_USDC_ADDRESS);
    expect(await client.readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "name" })).toBe("USD Coin");
    expect((await client.getCode({ address: MULTICALL3_ADDRESS }))?.length).toBeGreaterThan(100);
    expect(await chain.balanceOf(holder.address)).toBe(9_000_000n);
    expect(await client.getBalance({ address: privateKeyToAccount(chain.accounts[0] as Hex).address })).toBe(10n ** 21n);
  });

  it("mines a block every interval, automine off: a transfer through Multicall3 waits for its block and executes", async () => {
    const facilitator = privateKeyToAccount(chain.accounts[0] as Hex);
    const auth = { from: holder.address, to: payee, value: 1_500_000n, validAfter: 0n, validBefore: BigInt(Math.floor(Date.now() / 1000) + 600), nonce: toHex(randomBytes(32)) };
    const signature = await holder.signTypedData({
      domain: { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: chain.usdc },
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: auth,
    });
    const callData = encodeFunctionData({ abi: eip3009TokenAbi, functionName: "transferWithAuthorization", args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature] });
    const wallet = createWalletClient({ account: facilitator, chain: chain.chain, transport: http(chain.rpcUrl) });
    await nextBlock();
    const hash = await wallet.writeContract({ address: MULTICALL3_ADDRESS, abi: multicall3Abi, functionName: "aggregate3", args: [[{ target: chain.usdc, allowFailure: false, callData }]] });
    expect(await client.request({ method: "eth_getTransactionReceipt", params: [hash] })).toBeNull();
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 25, timeout: 4 * INTERVAL_MS });
    expect(receipt.status).toBe("success");
    expect(parseEventLogs({ abi: eip3009TokenAbi, logs: receipt.logs }).map((e) => e.eventName)).toEqual(["AuthorizationUsed", "Transfer"]);
    expect(await chain.balanceOf(payee)).toBe(1_500_000n);
  }, 20_000);

  it("answers a reverted call as a real node does (code 3, the revert reason)", async () => {
    const res = await fetch(chain.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ from: holder.address, to: chain.usdc, data: encodeFunctionData({ abi: eip3009TokenAbi, functionName: "mint", args: [holder.address, 1n] }) }, "latest"] }),
    });
    const body = (await res.json()) as { error?: { code: number; message: string } };
    expect(body.error?.code).toBe(3);
    expect(body.error?.message).toMatch(/caller is not the owner/);
  });

  it("tells onRequest every method served through its proxy, a batch's included", async () => {
    const before = { ...counted };
    const res = await fetch(chain.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] },
        { jsonrpc: "2.0", id: 2, method: "eth_chainId", params: [] },
      ]),
    });
    const answers = (await res.json()) as { id: number; result: string }[];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2]);
    expect(answers.find((a) => a.id === 2)?.result).toBe("0x2105");
    expect((counted.eth_blockNumber ?? 0) - (before.eth_blockNumber ?? 0)).toBe(1);
    expect((counted.eth_chainId ?? 0) - (before.eth_chainId ?? 0)).toBe(1);
  });

  it("refuses an interval that is not whole seconds, and starts nothing", async () => {
    await expect(startAnvilChain({ blockIntervalMs: 100 })).rejects.toThrow(/whole seconds/);
  });

  it("stops its process: the node no longer answers", async () => {
    const other = await startAnvilChain({ accounts: 1 });
    expect(await createPublicClient({ transport: http(other.rpcUrl) }).getChainId()).toBe(8453);
    await other.stop();
    await expect(fetch(other.rpcUrl, { method: "POST", body: "{}" })).rejects.toThrow();
    await other.stop();
  }, 20_000);
});
