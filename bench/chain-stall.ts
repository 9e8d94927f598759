import { createPublicClient, createWalletClient, encodeFunctionData, http, parseAbi, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { authorizationTypes } from "@x402/evm";
import { ChainThread } from "./chain.js";

/**
 * How long the bench's local chain stops answering JSON-RPC when it mines a block, by the load
 * the block carries: `npx tsx bench/chain-stall.ts [transactions] [transfers]` sends, before each
 * of four blocks (one every 2 s), that many Multicall3 transactions of that many
 * transferWithAuthorization each (what the stack's batches are), while eth_blockNumber is asked
 * every 3 ms; it prints the answers slower than 40 ms and when they came. The chain is the
 * bench's own: hardhat's EDR in the bench's chain thread, or with a third argument `anvil`,
 * Foundry's anvil (the node of the bench's 2 s rows unless --chain-2s edr).
 */
const transactions = Number(process.argv[2] ?? 25);
const transfersEach = Number(process.argv[3] ?? 7);
const engine = process.argv[4] ?? "edr";
const BLOCK_MS = 2000;
const BLOCKS = 4;
const SLOW_MS = 40;
if (!Number.isSafeInteger(transactions) || transactions < 1 || !Number.isSafeInteger(transfersEach) || transfersEach < 1 || (engine !== "edr" && engine !== "anvil")) {
  throw new Error("usage: tsx bench/chain-stall.ts [transactions >= 1] [transfers each >= 1] [edr|anvil]");
}

const multicall = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
]);
const transferWithAuthorization = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
]);
const SINK = "0x000000000000000000000000000000000000dEaD";

const payers = Array.from({ length: 64 }, () => privateKeyToAccount(generatePrivateKey()));
const thread = new ChainThread();
try {
  const chain = await thread.start(1, { engine, blockIntervalMs: BLOCK_MS, mints: payers.map((p) => ({ to: p.address, amount: 10n ** 12n })) });
  const transport = http(chain.rpcUrl);
  const reader = createPublicClient({ chain: chain.chain, transport });
  const facilitator = privateKeyToAccount(chain.accounts[0] as Hex);
  const sender = createWalletClient({ account: facilitator, chain: chain.chain, transport });
  let signed = 0;
  const transferCall = async () => {
    const payer = payers[signed++ % payers.length]!;
    const message = { from: payer.address, to: SINK, value: 1000n, validAfter: 0n, validBefore: 2n ** 40n, nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) } as const;
    const signature = await payer.signTypedData({ domain: { name: "USD Coin", version: "2", chainId: chain.chainId, verifyingContract: chain.usdc }, types: authorizationTypes, primaryType: "TransferWithAuthorization", message });
    const args = [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, signature] as const;
    return { target: chain.usdc, allowFailure: true, callData: encodeFunctionData({ abi: transferWithAuthorization, functionName: "transferWithAuthorization", args }) };
  };

  const slow: string[] = [];
  const started = performance.now();
  let asking = true;
  const asker = (async () => {
    while (asking) {
      const at = performance.now();
      await reader.getBlockNumber({ cacheTime: 0 });
      const ms = performance.now() - at;
      if (ms > SLOW_MS) slow.push(`${((at - started) / 1000).toFixed(2)} s: ${ms.toFixed(0)} ms`);
      await new Promise((r) => setTimeout(r, 3));
    }
  })();
  let nonce = await reader.getTransactionCount({ address: facilitator.address, blockTag: "pending" });
  for (let block = 0; block < BLOCKS; block++) {
    const batches = [];
    for (let t = 0; t < transactions; t++) batches.push(await Promise.all(Array.from({ length: transfersEach }, transferCall)));
    const before = await reader.getBlockNumber({ cacheTime: 0 });
    for (const calls of batches) {
      await sender.writeContract({ address: chain.chain.contracts!.multicall3!.address, abi: multicall, functionName: "aggregate3", args: [calls], gas: 60_000n + 100_000n * BigInt(transfersEach), nonce: nonce++, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n });
    }
    // Past the block that mined them, so the next load goes into a block of its own.
    while ((await reader.getBlockNumber({ cacheTime: 0 })) <= before + 1n) await new Promise((r) => setTimeout(r, 50));
  }
  asking = false;
  await asker;
  // Every transfer executed (allowFailure would hide a bad signature, and a failed transfer is cheap).
  const moved = await chain.balanceOf(SINK);
  const expected = 1000n * BigInt(BLOCKS * transactions * transfersEach);
  if (moved !== expected) throw new Error(`the sink received ${moved} base units, not ${expected}: some transfers failed`);
  console.log(`${transactions} transactions of ${transfersEach} transfers a block, ${BLOCKS} blocks ${BLOCK_MS} ms apart: answers slower than ${SLOW_MS} ms:`);
  console.log(slow.length > 0 ? slow.map((s) => `  ${s}`).join("\n") : "  none");
  await chain.stop();
} finally {
  await thread.close();
}
