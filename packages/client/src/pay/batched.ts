// Circle's batched rail: the buyer pays from its Circle Gateway balance with Circle's own client
// (@circle-fin/x402-batching) under @x402/fetch; the payee is credited by the Gateway, offchain.
// Its offer is the Base exact entry whose extra.name is GatewayWalletBatched (SPEC.md 4.1 rule 5).

import { registerBatchScheme } from "@circle-fin/x402-batching/client";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Payer } from "./types.js";
import { isBatchedOffer, x402Payer } from "./x402.js";

/** USDC on Base: the asset the batched offers are in. */
export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const BASE = "eip155:8453";

export function batchedPayer(opts: { privateKey: Hex; usdc?: string; fetch?: typeof globalThis.fetch }): Payer {
  const account = privateKeyToAccount(opts.privateKey);
  return x402Payer({
    rail: "batched",
    address: account.address,
    setup: (client) => {
      // Circle's scheme declares no default asset, so @x402/core's spend controls must name USDC
      // (at most 1 USDC a payment, the same ceiling @x402/core puts on the other rails by default).
      client.setSpendControls({ allowedAssets: [{ network: BASE, asset: opts.usdc ?? BASE_USDC, maxAmountPerPayment: "1000000" }] });
      registerBatchScheme(client, { signer: account, networks: [BASE] });
    },
    offers: (r) => r.network === BASE && isBatchedOffer(r),
    ...(opts.fetch && { fetch: opts.fetch }),
  });
}
