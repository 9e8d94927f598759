// Base (eip155:8453), x402 exact: an EIP-3009 USDC authorization signed by @x402/evm's client.
// The batched rail's offer is exact on Base too: it is left to the batched payer.

import { ExactEvmScheme } from "@x402/evm/exact/client";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Payer } from "./types.js";
import { isBatchedOffer, x402Payer } from "./x402.js";

export function basePayer(opts: { privateKey: Hex; fetch?: typeof globalThis.fetch }): Payer {
  const account = privateKeyToAccount(opts.privateKey);
  return x402Payer({
    rail: "base",
    address: account.address,
    setup: (client) => void client.register("eip155:*", new ExactEvmScheme(account)),
    offers: (r) => r.network.startsWith("eip155:") && !isBatchedOffer(r),
    ...(opts.fetch && { fetch: opts.fetch }),
  });
}
