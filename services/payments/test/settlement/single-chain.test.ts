import { eip3009TokenAbi, startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { authorizationTypes } from "mppx/evm";
import { createPublicClient, http, toHex, type Address, type Hex, type LocalAccount, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseReader, baseSigner } from "../../src/rails/base-exact.js";
import type { Eip3009Authorization } from "../../src/rails/eip3009.js";
import { baseBatchChain } from "../../src/settlement/base-batch-chain.js";
import { baseSingleChain, revertData } from "../../src/settlement/base-single-chain.js";
import { SettlementBatcher, SettlementNotSent, type BatchReport } from "../../src/settlement/batcher.js";

// Settlement on a chain without Multicall3 (a devnet, a fork): the batcher routed to one
// transferWithAuthorization per transaction, against the real local chain.

const VALUE = 5000n;
let chain: EvmChain;
let rpc: PublicClient;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
const now = () => BigInt(Math.floor(Date.now() / 1000));

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 1, multicall3: false });
  rpc = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
});
afterAll(async () => {
  await chain?.stop();
});

async function authorize(account: LocalAccount, to: Address = payTo): Promise<Eip3009Authorization> {
  const message = { from: account.address, to, value: VALUE, validAfter: now() - 600n, validBefore: now() + 600n, nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) };
  const signature = await account.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: chain.chainId, verifyingContract: chain.usdc },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  return { ...message, signature };
}

async function payer(usdc: bigint): Promise<LocalAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  if (usdc > 0n) await chain.mint(account.address, usdc);
  return account;
}

function chains() {
  const signer = baseSigner({ rpcUrl: chain.rpcUrl, facilitatorKey: chain.accounts[0] as Hex, verifier: "native" });
  const reader = baseReader({ rpcUrl: chain.rpcUrl });
  return { batched: baseBatchChain(signer, reader), single: baseSingleChain(signer, reader) };
}

const settings = { maxSize: 32, windowMs: 30, receiptTimeoutMs: 10_000, receiptPollMs: 20 };

describe("settlement without Multicall3", () => {
  it("batched through aggregate3 there, nothing can be sent: every payment SettlementNotSent (the issue's 503s)", async () => {
    const { batched } = chains();
    const batcher = new SettlementBatcher(batched, chain.usdc, settings);
    const a = await authorize(await payer(VALUE));
    await expect(batcher.settle(a)).rejects.toBeInstanceOf(SettlementNotSent);
    expect(await chain.balanceOf(payTo)).toBe(0n);
  });

  it("routed to single transactions: each payment settles in a transaction of its own, straight to the token; one the token refuses is answered at once and not sent", async () => {
    const { batched, single } = chains();
    const reports: BatchReport[] = [];
    const batcher = new SettlementBatcher(batched, chain.usdc, settings, (r) => reports.push(r));
    batcher.route(single, 1);
    const good: Eip3009Authorization[] = [];
    for (let i = 0; i < 5; i++) good.push(await authorize(await payer(VALUE)));
    const short = await authorize(await payer(VALUE - 1n));
    const before = await chain.balanceOf(payTo);

    const outcomes = await Promise.all([...good, short].map((a) => batcher.settle(a)));
    const settled = outcomes.slice(0, 5);
    for (const o of settled) expect(o).toMatchObject({ ok: true });
    const hashes = settled.map((o) => (o.ok ? o.transaction : null)) as Hex[];
    expect(new Set(hashes).size).toBe(5);
    for (const hash of hashes) {
      const tx = await rpc.getTransaction({ hash });
      expect(tx.to?.toLowerCase()).toBe(chain.usdc.toLowerCase());
    }
    expect(outcomes[5]).toMatchObject({ ok: false, reason: "payment_insufficient_funds" });
    expect(await chain.balanceOf(payTo)).toBe(before + 5n * VALUE);
    expect(reports.map((r) => r.size)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(reports.filter((r) => r.outcome === "mined")).toHaveLength(5);
    expect(reports.filter((r) => r.outcome === "refused")).toHaveLength(1);
    // The same authorization again: used on chain, refused by the token's simulation.
    expect(await batcher.settle(good[0]!)).toMatchObject({ ok: false, reason: "payment_already_used" });
    expect(await rpc.readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "authorizationState", args: [good[0]!.from, good[0]!.nonce] })).toBe(true);
  });

  it("payments queued before the route changed are split to one per transaction", async () => {
    const { batched, single } = chains();
    const reports: BatchReport[] = [];
    const batcher = new SettlementBatcher(batched, chain.usdc, { ...settings, windowMs: 200 }, (r) => reports.push(r));
    const payments = [await authorize(await payer(VALUE)), await authorize(await payer(VALUE))];
    const settling = payments.map((a) => batcher.settle(a));
    batcher.route(single, 1);
    for (const o of await Promise.all(settling)) expect(o).toMatchObject({ ok: true });
    expect(reports.map((r) => [r.size, r.outcome])).toEqual([
      [1, "mined"],
      [1, "mined"],
    ]);
  });
});

describe("revertData", () => {
  it("the node's revert (code 3, with or without data) is the token's refusal; anything else is not", () => {
    expect(revertData({ name: "RpcRequestError", code: 3, data: "0x08c379a0" })).toBe("0x08c379a0");
    expect(revertData({ name: "CallExecutionError", cause: { code: 3 } })).toBe("0x");
    expect(revertData({ code: 3, data: { message: "execution reverted", data: "0x08c379a0" } })).toBe("0x08c379a0");
    expect(revertData({ code: -32000, details: "execution reverted" })).toBe("0x");
    expect(revertData({ name: "HttpRequestError", status: 503 })).toBeNull();
    expect(revertData(Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } }))).toBeNull();
  });
});
