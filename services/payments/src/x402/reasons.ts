import type { ErrorCode } from "@board/proto";

/**
 * The facilitators' invalidReason / errorReason strings, mapped to our stable reason codes.
 * Their vocabularies differ per scheme and grow with releases, so the mapping goes by the
 * words in them, most specific first; anything unrecognised is payment_rejected, with the
 * facilitator's own reason kept in the message.
 */
const RULES: readonly [RegExp, ErrorCode][] = [
  [/insufficient|balance/, "payment_insufficient_funds"],
  [/nonce_already_used|duplicate|already|replay/, "payment_already_used"],
  [/expired|valid_before|valid_after|deadline|too_old|last_valid/, "payment_expired"],
  [/recipient|pay_?to|receiver|destination/, "payment_pay_to_mismatch"],
  [/amount|value_mismatch|authorization_value/, "payment_amount_mismatch"],
  [/mint|asset|token_name|token_version|eip712_domain/, "payment_asset_mismatch"],
  [/network|chain/, "payment_network_mismatch"],
  [/scheme/, "payment_unsupported_scheme"],
  [/signature|signer/, "payment_invalid_signature"],
  [/parse|format|payload|malformed/, "payment_invalid_header"],
];

export function reasonCode(facilitatorReason: string | undefined): ErrorCode {
  const r = (facilitatorReason ?? "").toLowerCase();
  for (const [pattern, code] of RULES) if (pattern.test(r)) return code;
  return "payment_rejected";
}

/** What a client should do about each refusal: the message of the 402. */
export const REFUSAL_ADVICE: Partial<Record<ErrorCode, string>> = {
  payment_invalid_header: "The payment header could not be read. Send a base64 x402 payload in PAYMENT-SIGNATURE (v2) or X-PAYMENT.",
  payment_unsupported_scheme: "The payment uses a scheme or rail this route does not offer. Pay one of the offers in this 402.",
  payment_amount_mismatch: "The payment is not for this route's price. Pay the amount in this 402's offers.",
  payment_pay_to_mismatch: "The payment is not to this service's payTo address. Pay one of the offers in this 402.",
  payment_asset_mismatch: "The payment is not in the offered asset (USDC). Pay one of the offers in this 402.",
  payment_network_mismatch: "The payment is on a network this route does not offer. Pay one of the offers in this 402.",
  payment_route_mismatch: "The payment was made for another resource. Pay for this URL.",
  payment_expired: "The payment authorization has expired or is not yet valid. Sign a fresh payment.",
  payment_already_used: "This payment was already used. Each payment buys one read: sign a new one.",
  payment_insufficient_funds: "The paying account does not hold enough USDC for this payment.",
  payment_invalid_signature: "The payment signature does not verify. Sign the payment again with the paying key.",
  payment_settlement_failed:
    "The payment could not be settled and nothing was served. If the chain refused it, nothing was charged: sign a fresh payment. If its outcome is unknown, it is reconciled within minutes and can never be charged twice; the same payment sent again is refused.",
  payment_redelivery_expired:
    "This payment's read was served; a retry of the same payment is served the same read again only within the redelivery window after settlement, which has passed. Sign a new payment for a new read.",
  payment_redelivery_exhausted: "This payment's read was already delivered again as many times as a payment allows. Sign a new payment for a new read.",
  payment_rejected: "The payment was refused by the facilitator. Sign a fresh payment for one of the offers in this 402.",
  payment_required: "This read is paid. Pay one of the offers in this 402, or send a valid X-License-Key.",
};
