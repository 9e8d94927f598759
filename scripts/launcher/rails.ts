// Which payment variables mean "the operator chose real rails" (then no development chain starts),
// and what the development chains hand to payments. Kept apart from dev-chains.ts, which loads the
// chains' heavy modules only when they are wanted.

import type { DevWallets } from "@board/client/dev-wallets";

/** The payment variables payments reads; any of them set means the operator chose real rails. */
export const RAIL_VARIABLES = ["PAY_TO_BASE", "PAY_TO_SOLANA", "PAY_TO_ALGORAND", "CIRCLE_GATEWAY_URL", "MPP_SECRET_KEY"] as const;

export type DevChains = {
  /** The payments variables that point every rail at the development chains. */
  env: Record<string, string>;
  wallets: DevWallets;
  stop(): Promise<void>;
};
