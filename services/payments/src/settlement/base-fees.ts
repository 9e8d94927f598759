import type { PublicClient } from "viem";

/** Fees are asked of the node at most this often: about one Base block. */
const FEE_REFRESH_MS = 2_000;

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The node's EIP-1559 fees, asked at most every FEE_REFRESH_MS for every settlement transaction of the account. */
export function feeCache(reader: Pick<PublicClient, "estimateFeesPerGas">): () => Promise<Fees> {
  let feesAt = -Infinity;
  let feesAsked: Promise<Fees> | null = null;
  return () => {
    if (!feesAsked || performance.now() - feesAt > FEE_REFRESH_MS) {
      feesAt = performance.now();
      const asked = reader.estimateFeesPerGas();
      feesAsked = asked;
      // A failed ask is not kept: the next transaction asks again.
      asked.catch(() => {
        if (feesAsked === asked) feesAsked = null;
      });
    }
    return feesAsked;
  };
}
