import type { MppReason } from "../rails/mpp/reasons.js";
import type { SettlementOutcome } from "../rails/mpp/server-method.js";

/** FiatToken's revert strings, as our reason codes (the words of Base USDC and of the local token alike). */
const REVERTS: readonly [RegExp, MppReason][] = [
  [/authorization is used or canceled/i, "payment_already_used"],
  [/exceeds balance|insufficient/i, "payment_insufficient_funds"],
  [/authorization is expired|authorization is not yet valid/i, "payment_expired"],
  [/invalid signature|ECRecover/i, "payment_invalid_signature"],
];

/** A transfer the token refused, as a definite refusal: nothing moved. */
export function refusalOfRevert(reason: string, transaction?: `0x${string}`): SettlementOutcome {
  const code = REVERTS.find(([pattern]) => pattern.test(reason))?.[1] ?? "payment_settlement_failed";
  return { ok: false, reason: code, detail: `the token refused the transfer: ${reason}`, ...(transaction && { transaction }) };
}
