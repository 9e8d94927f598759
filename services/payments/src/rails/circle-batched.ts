import type { Rail } from "@board/proto";
import { BatchFacilitatorClient, GatewayEvmScheme } from "@circle-fin/x402-batching/server";
import { x402ResourceServer, type FacilitatorClient } from "@x402/core/server";
import type { PaymentRequirements } from "@x402/core/types";
import { getAddress, type Address } from "viem";
import { BASE_NETWORK, eip3009Authorization } from "./base-exact.js";
import type { X402Rail } from "./rail.js";

const BATCHED = "GatewayWalletBatched";

export interface CircleBatchedConfig {
  payTo: Address;
  usdc: Address;
  /** Circle's Gateway API base URL (https://gateway-api.circle.com in production). */
  gatewayUrl: string;
}

/**
 * Circle's batched rail: an exact-scheme offer on Base whose extra.name is
 * GatewayWalletBatched. The payer signs against its Gateway balance; Circle's Gateway
 * verifies and settles offchain, so this rail is verified and settled by Circle's own
 * client, never by our facilitator. Its offer shares (network, scheme) with the plain Base
 * offer, so it is built by its own resource server (one facilitator per kind there).
 */
export function circleBatchedRail(cfg: CircleBatchedConfig): X402Rail {
  const gateway = new BatchFacilitatorClient({ url: cfg.gatewayUrl }) as unknown as FacilitatorClient;
  const server = new x402ResourceServer(gateway).register(BASE_NETWORK, new GatewayEvmScheme());
  let initialized: Promise<void> | null = null;
  // Circle's supported kinds, once; a failed attempt is forgotten so the next one asks again.
  const initialize = () =>
    (initialized ??= (async () => {
      // Asked by us first: x402's resource server prints a line of its own (console.warn, with
      // the error's text) for a facilitator that does not answer.
      await gateway.getSupported();
      await server.initialize();
    })().catch((err: unknown) => {
      initialized = null;
      throw err;
    }));
  const usdc = getAddress(cfg.usdc);
  return {
    rail: "circle_batched" satisfies Rail,
    network: BASE_NETWORK,
    networkAliases: [],
    v1Network: null,
    probe: initialize,
    async offer(amount: bigint, maxTimeoutSeconds: number): Promise<PaymentRequirements> {
      await initialize();
      const [requirement] = await server.buildPaymentRequirements({
        scheme: "exact",
        network: BASE_NETWORK,
        payTo: getAddress(cfg.payTo),
        price: { amount: amount.toString(), asset: usdc },
        maxTimeoutSeconds,
      });
      if (!requirement) throw new Error("Circle's Gateway offered no batched payment kind on Base");
      return requirement;
    },
    owns: (r: PaymentRequirements) => r.network === BASE_NETWORK && r.extra?.["name"] === BATCHED,
    facilitator: () => gateway,
    paymentKey(payload) {
      const a = eip3009Authorization(payload);
      // Gateway authorizations are unique per payer and nonce (Circle refuses a reused nonce).
      return a ? `gateway:${BASE_NETWORK}:${a.from.toLowerCase()}:${a.nonce.toLowerCase()}` : null;
    },
    payer: (payload) => eip3009Authorization(payload)?.from ?? null,
  };
}
