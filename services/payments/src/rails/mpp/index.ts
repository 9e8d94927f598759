// The MPP rail's public surface (SPEC.md 4.1 rule 5): method `usdc`, intent `charge`, on Base.
export { createMppRail, USD_COIN_EIP712, type MppExpected, type MppRail, type MppRailConfig, type MppSettled, type MppVerified } from "./rail.js";
export { authorizationNonce, toEip3009, usdcMethod, usdcReceipt, UsdcAuthorization } from "./method.js";
export type { Eip3009Authorization } from "../eip3009.js";
export { usdcCharge, type AuthorizationCheck, type AuthorizationTarget, type SettleAuthorization, type SettlementOutcome, type VerifyAuthorization } from "./server-method.js";
export { reasonOf, type MppProblem, type MppReason, type MppRefusal } from "./reasons.js";
