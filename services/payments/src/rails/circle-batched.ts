import type { Rail } from "@board/proto";
import { BatchFacilitatorClient, GatewayEvmScheme } from "@circle-fin/x402-batching/server";
import { x402ResourceServer, type FacilitatorClient } from "@x402/core/server";
import type { PaymentRequirements, SupportedResponse } from "@x402/core/types";
import { getAddress, recoverAddress, type Address } from "viem";
import { RailCheckFailed } from "./backend-failure.js";
import { BASE_NETWORK, eip3009Authorization } from "./base-exact.js";
import { verifyEip3009Locally } from "./eip3009-local-verify.js";
import type { AnyPaymentPayload } from "./payload.js";
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
      checkSupported(await gateway.getSupported(), usdc);
      await server.initialize();
    })().catch((err: unknown) => {
      initialized = null;
      throw err;
    }));
  const usdc = getAddress(cfg.usdc);
  // Circle's Gateway is asked only about payments that pass the checks it would make first.
  const guarded: FacilitatorClient = {
    async verify(payload, requirement) {
      const refusal = await localRefusal(payload, requirement);
      return refusal ? { isValid: false, invalidReason: refusal, payer: eip3009Authorization(payload)?.from ?? "" } : gateway.verify(payload, requirement);
    },
    settle: (payload, requirement) => gateway.settle(payload, requirement),
    getSupported: () => gateway.getSupported(),
  };
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
    facilitator: () => guarded,
    paymentKey(payload) {
      const a = eip3009Authorization(payload);
      // Gateway authorizations are unique per payer and nonce (Circle refuses a reused nonce).
      return a ? `gateway:${BASE_NETWORK}:${a.from.toLowerCase()}:${a.nonce.toLowerCase()}` : null;
    },
    payer: (payload) => eip3009Authorization(payload)?.from ?? null,
  };
}

/**
 * What the rail needs of Circle's Gateway: its batched kind on Base, for our USDC (when it
 * lists assets). Throws RailCheckFailed otherwise: its offers could not be paid.
 */
function checkSupported(supported: SupportedResponse, usdc: Address): void {
  const kind = supported.kinds.find((k) => k.network === BASE_NETWORK && k.scheme === "exact" && k.extra?.["name"] === BATCHED);
  if (!kind) throw new RailCheckFailed("network_mismatch", `Circle's Gateway offers no batched kind on Base (${BASE_NETWORK})`, { network: BASE_NETWORK });
  const assets = kind.extra?.["assets"];
  if (Array.isArray(assets) && !assets.some((a) => typeof (a as { address?: unknown })?.address === "string" && getAddress((a as { address: string }).address) === usdc))
    throw new RailCheckFailed("asset_missing", `Circle's Gateway lists another USDC on Base than ${usdc} (BASE_USDC_ADDRESS)`, { network: BASE_NETWORK, usdc });
}

/**
 * The local verdict on a batched payment (eip3009-local-verify.ts: signature, recipient,
 * validity, amount), as an x402 invalid reason, or null to let Circle's Gateway decide. The
 * payer signs a TransferWithAuthorization in the Gateway wallet's EIP-712 domain
 * (GatewayWalletBatched, its version, the wallet contract the offer names), not USDC's.
 */
async function localRefusal(payload: AnyPaymentPayload, requirement: PaymentRequirements): Promise<string | null> {
  const extra = requirement.extra ?? {};
  const [version, verifyingContract] = [extra["version"], extra["verifyingContract"]];
  const chainId = Number(requirement.network.split(":")[1]);
  if (typeof version !== "string" || typeof verifyingContract !== "string" || !Number.isSafeInteger(chainId)) return null;
  const verdict = await verifyEip3009Locally(payload, requirement, chainId, (hash, signature) => recoverAddress({ hash, signature }).catch(() => null), {
    name: BATCHED,
    version,
    verifyingContract: getAddress(verifyingContract),
  });
  return verdict && !verdict.ok ? verdict.code : null;
}
