import type { Address, Hex } from "viem";
import type { PaymentsEnv } from "../env.js";
import { BASE_CHAIN_ID, baseExactRail, baseSigner } from "./base-exact.js";
import { circleBatchedRail } from "./circle-batched.js";
import { createMppRail, eip3009Settlement, type MppRail } from "./mpp/index.js";
import { claimsReplayStore } from "./mpp/claims-replay-store.js";
import { algorandRails } from "./algorand-exact.js";
import type { X402Rail } from "./rail.js";
import { solanaRails } from "./solana-exact.js";

export interface ConfiguredRails {
  /** The x402 rails, in the order of the 402's `accepts`. */
  x402: X402Rail[];
  /** The MPP usdc charge on Base, when MPP_SECRET_KEY is set. */
  mpp: MppRail | null;
  /** Asks MPP's backend, the Base RPC it settles on (the Base rail's probe); null without MPP. */
  mppProbe: (() => Promise<void>) | null;
}

/** The rails this configuration offers. One facilitator account on Base serves x402 and MPP alike (one nonce sequence). */
export function configuredRails(env: PaymentsEnv): ConfiguredRails {
  const x402: X402Rail[] = [];
  let mpp: MppRail | null = null;
  let mppProbe: (() => Promise<void>) | null = null;
  if (env.PAY_TO_BASE && env.BASE_RPC_URL && env.BASE_FACILITATOR_KEY) {
    const cfg = {
      payTo: env.PAY_TO_BASE as Address,
      rpcUrl: env.BASE_RPC_URL,
      facilitatorKey: env.BASE_FACILITATOR_KEY as Hex,
      usdc: env.BASE_USDC_ADDRESS as Address,
      verifier: env.EVM_VERIFIER,
    };
    const signer = baseSigner(cfg);
    const base = baseExactRail(cfg, signer);
    x402.push(base);
    if (env.CIRCLE_GATEWAY_URL) x402.push(circleBatchedRail({ payTo: cfg.payTo, usdc: cfg.usdc, gatewayUrl: env.CIRCLE_GATEWAY_URL }));
    if (env.MPP_SECRET_KEY) {
      mpp = createMppRail({
        secretKey: env.MPP_SECRET_KEY,
        realm: new URL(env.PUBLIC_BASE_URL).host,
        payTo: cfg.payTo,
        usdc: cfg.usdc,
        chainId: BASE_CHAIN_ID,
        challengeTtlSeconds: env.PAYMENT_TIMEOUT_SECONDS,
        replayStore: claimsReplayStore(),
        ...eip3009Settlement(signer),
      });
      mppProbe = () => base.probe?.() ?? Promise.resolve();
    }
  }
  x402.push(...solanaRails(env));
  x402.push(...algorandRails(env));
  return { x402, mpp, mppProbe };
}
