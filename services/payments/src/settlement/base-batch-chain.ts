import type { FacilitatorEvmSigner } from "@x402/evm";
import type { Address, Hex, PublicClient } from "viem";
import { nonceManager } from "viem/accounts";
import { aggregate3Abi, MULTICALL3, type Call3, type ReceiptLog } from "./aggregate3.js";
import type { BatchChain } from "./batcher.js";

/** Gas limit over the estimate: the state may move between estimate and inclusion, and unused gas is not paid. */
const GAS_HEADROOM_PERCENT = 20n;

interface RawReceipt {
  status: Hex;
  gasUsed: Hex;
  logs: { address: Address; topics: Hex[]; data: Hex }[];
}

/**
 * The batch's chain on Base: simulation and gas estimate from our facilitator account, the
 * transaction through the signer's own nonce manager and ordered broadcast (shared with the
 * rest of the Base rail), the receipt by plain eth_getTransactionReceipt.
 */
export function baseBatchChain(signer: FacilitatorEvmSigner, reader: PublicClient, chainId: number): BatchChain {
  const [account] = signer.getAddresses();
  const call = (calls: readonly Call3[]) => ({ address: MULTICALL3, abi: aggregate3Abi, functionName: "aggregate3" as const, args: [calls] as const, account });
  return {
    async simulate(calls) {
      return reader.readContract(call(calls));
    },
    async send(calls) {
      const estimate = await reader.estimateContractGas(call(calls));
      const gas = estimate + (estimate * GAS_HEADROOM_PERCENT) / 100n;
      return signer.writeContract({ address: MULTICALL3, abi: aggregate3Abi, functionName: "aggregate3", args: [calls], gas });
    },
    async receipt(hash) {
      const raw = (await reader.request({ method: "eth_getTransactionReceipt", params: [hash] })) as RawReceipt | null;
      if (!raw) return null;
      const logs: ReceiptLog[] = raw.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data }));
      return { status: raw.status === "0x1" ? "success" : "reverted", gasUsed: BigInt(raw.gasUsed), logs };
    },
    resync() {
      // The node's pending count includes a transaction it still holds, and not one it dropped.
      if (account) nonceManager.reset({ address: account, chainId });
    },
  };
}
