/**
 * Why the algod stand-in refused a transaction group. `stage` follows algod: "verify" failures
 * (encoding, signatures, fees) make /v2/transactions/simulate answer 400, "eval" failures
 * (rounds, group id, duplicates, balances) come back inside a 200 simulate result as
 * failure-message. POST /v2/transactions answers 400 for both.
 */
export type StandInRejectionReason =
  | "decode_failed"
  | "non_canonical_encoding"
  | "empty_group"
  | "group_too_large"
  | "unsupported_transaction"
  | "missing_signature"
  | "invalid_signature"
  | "wrong_authorizer"
  | "validity_window_invalid"
  | "fee_too_small"
  | "genesis_mismatch"
  | "txn_dead"
  | "group_id_mismatch"
  | "already_in_ledger"
  | "unknown_asset"
  | "asset_not_opted_in"
  | "asset_underflow"
  | "overspend"
  | "below_min_balance";

export interface StandInRejection {
  reason: StandInRejectionReason;
  stage: "verify" | "eval";
  /** algod-style text, e.g. "transaction <id>: underflow on subtracting 5000 from sender amount 10". */
  message: string;
  /** Index in the group of the transaction at fault, when one is. */
  groupIndex?: number;
}

export function reject(
  reason: StandInRejectionReason,
  stage: StandInRejection["stage"],
  message: string,
  groupIndex?: number,
): StandInRejection {
  return groupIndex === undefined ? { reason, stage, message } : { reason, stage, message, groupIndex };
}

export function isRejection(value: unknown): value is StandInRejection {
  return typeof value === "object" && value !== null && "reason" in value && "stage" in value && "message" in value;
}
