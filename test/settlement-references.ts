import type { Rail } from "@board/client";

/** What each rail's settlement reference (the receipt's transaction) looks like. */
export const TRANSACTION: Record<Rail, RegExp> = {
  base: /^0x[0-9a-f]{64}$/,
  solana: /^[1-9A-HJ-NP-Za-km-z]{64,88}$/,
  algorand: /^[A-Z2-7]{52}$/,
  batched: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  mpp: /^0x[0-9a-f]{64}$/,
};
