import type { Address, Hex, PublicClient } from "viem";
import { aggregate3Abi, MULTICALL3, type Call3, type ReceiptLog } from "./aggregate3.js";
import type { BaseSigner } from "../rails/base-exact.js";
import { feeCache } from "./base-fees.js";
import type { BatchChain } from "./batcher.js";

/**
 * The batch's gas limit, fixed rather than estimated: eth_estimateGas searches by re-running
 * the whole batch (66 ms for 32 transfers on the local node, longer than everything else a
 * batch does). A transfer measured 46-49k gas inside a batch and 92k alone with its 21k base
 * (bench and test/settlement); the limit leaves about twice that per transfer. Unused gas is
 * not paid; a limit too low would revert the whole batch.
 */
const BATCH_BASE_GAS = 60_000n;
const GAS_PER_TRANSFER = 100_000n;

/** The gas limit a batch of `transfers` payments is sent with (what the facilitator must be able to pay for). */
export const batchGasLimit = (transfers: number) => BATCH_BASE_GAS + GAS_PER_TRANSFER * BigInt(transfers);

interface RawReceipt {
  status: Hex;
  blockNumber: Hex;
  gasUsed: Hex;
  logs: { address: Address; topics: Hex[]; data: Hex }[];
}

/**
 * The batch's chain on Base: simulation and gas estimate from our facilitator account, the
 * transaction through the signer's own nonce manager and ordered broadcast (shared with the
 * rest of the Base rail), the receipt by plain eth_getTransactionReceipt.
 */
export function baseBatchChain(signer: BaseSigner, reader: PublicClient): BatchChain {
  const [account] = signer.getAddresses();
  const fees = feeCache(reader);
  const call = (calls: readonly Call3[]) => ({ address: MULTICALL3, abi: aggregate3Abi, functionName: "aggregate3" as const, args: [calls] as const, account });
  return {
    async simulate(calls) {
      return reader.readContract(call(calls));
    },
    async send(calls) {
      const gas = batchGasLimit(calls.length);
      const { maxFeePerGas, maxPriorityFeePerGas } = await fees();
      // baseSigner's writeContract hands these to viem's as they are (the x402 signer type names only gas).
      const write = signer.writeContract as (args: Parameters<BaseSigner["writeContract"]>[0] & { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) => Promise<Hex>;
      return write({ address: MULTICALL3, abi: aggregate3Abi, functionName: "aggregate3", args: [calls], gas, maxFeePerGas, maxPriorityFeePerGas });
    },
    async receipt(hash) {
      const raw = (await reader.request({ method: "eth_getTransactionReceipt", params: [hash] })) as RawReceipt | null;
      if (!raw) return null;
      const logs: ReceiptLog[] = raw.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data }));
      return { status: raw.status === "0x1" ? "success" : "reverted", gasUsed: BigInt(raw.gasUsed), logs, block: BigInt(raw.blockNumber) };
    },
    async blockNumber() {
      return BigInt((await reader.request({ method: "eth_blockNumber" })) as Hex);
    },
    resync() {
      // The node's pending count includes a transaction it still holds, and not one it dropped.
      signer.resyncNonces();
    },
  };
}
