import type { Address, Hex } from "viem";
import type { PaymentsEnv } from "../env.js";
import { baseExactRail } from "./base-exact.js";
import type { X402Rail } from "./rail.js";

/** The x402 rails this configuration offers, in the order of the 402's `accepts`. */
export function configuredRails(env: PaymentsEnv): X402Rail[] {
  const rails: X402Rail[] = [];
  if (env.PAY_TO_BASE && env.BASE_RPC_URL && env.BASE_FACILITATOR_KEY) {
    rails.push(
      baseExactRail({
        payTo: env.PAY_TO_BASE as Address,
        rpcUrl: env.BASE_RPC_URL,
        facilitatorKey: env.BASE_FACILITATOR_KEY as Hex,
        usdc: env.BASE_USDC_ADDRESS as Address,
        verifier: env.EVM_VERIFIER,
      }),
    );
  }
  return rails;
}
