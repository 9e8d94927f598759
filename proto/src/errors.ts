import { z } from "zod";

/**
 * Stable reason codes. They cross the bus in the Nats-Service-Error header and reach
 * clients in the error body; clients may act on them, so they never change meaning.
 */
export const ErrorCode = z.enum([
  "not_found",
  "method_not_allowed",
  "invalid_query",
  "invalid_request",
  "invalid_reply",
  "payment_required",
  "forbidden",
  "rate_limited",
  "snapshot_unavailable",
  "service_unavailable",
  "upstream_timeout",
  "upstream_error",
  "internal_error",
  // A reply larger than the bus carries (its max_payload): the caller asks for a smaller form (a view gzipped).
  "reply_too_large",
  "not_implemented",
  // Payment refusals: each a 402 a client can act on (pay again, fix the header, top up).
  "payment_invalid_header",
  "payment_unsupported_scheme",
  "payment_amount_mismatch",
  "payment_pay_to_mismatch",
  "payment_asset_mismatch",
  "payment_network_mismatch",
  "payment_route_mismatch",
  "payment_expired",
  "payment_already_used",
  "payment_insufficient_funds",
  "payment_invalid_signature",
  "payment_settlement_failed",
  "payment_rejected",
  "payment_redelivery_expired",
  "payment_redelivery_exhausted",
  // A read this payer was served before its block was not paid (its transfer failed on chain).
  "payment_payer_in_arrears",
  // Credentials and the free tiers (SPEC.md 5, 7 and 8).
  "key_unknown",
  "key_expired",
  "license_unknown",
  "license_lapsed",
  "license_revoked",
  "token_invalid",
  "sign_in_invalid",
  "sign_in_expired",
  "unknown_chain",
  "invalid_address",
  "route_not_in_tier",
  "credential_required",
  "daily_cap_reached",
  "burst_limited",
  // New credentials per client address an hour: free keys issued, wallets signed in.
  "key_issue_limit",
  "sign_in_limit",
  // The push feed (/api/board/events): concurrent streams per client address, and per gateway replica.
  "too_many_streams",
  "streams_at_capacity",
  // History reads: a date with no committed board, a board hash unknown or past what is kept.
  "session_not_committed",
  "board_unknown",
  "board_too_old",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The HTTP status each reason code is answered with. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  not_found: 404,
  method_not_allowed: 405,
  invalid_query: 400,
  invalid_request: 400,
  invalid_reply: 502,
  payment_required: 402,
  forbidden: 403,
  rate_limited: 429,
  snapshot_unavailable: 503,
  service_unavailable: 503,
  upstream_timeout: 504,
  upstream_error: 502,
  internal_error: 500,
  reply_too_large: 500,
  not_implemented: 501,
  payment_invalid_header: 402,
  payment_unsupported_scheme: 402,
  payment_amount_mismatch: 402,
  payment_pay_to_mismatch: 402,
  payment_asset_mismatch: 402,
  payment_network_mismatch: 402,
  payment_route_mismatch: 402,
  payment_expired: 402,
  payment_already_used: 402,
  payment_insufficient_funds: 402,
  payment_invalid_signature: 402,
  payment_settlement_failed: 402,
  payment_redelivery_expired: 402,
  payment_redelivery_exhausted: 402,
  payment_payer_in_arrears: 402,
  payment_rejected: 402,
  key_unknown: 403,
  key_expired: 403,
  license_unknown: 403,
  license_lapsed: 403,
  license_revoked: 403,
  token_invalid: 401,
  // A refused sign-in is answered with a fresh 402: it carries the next challenge to sign.
  sign_in_invalid: 402,
  sign_in_expired: 402,
  unknown_chain: 400,
  invalid_address: 400,
  route_not_in_tier: 402,
  credential_required: 401,
  daily_cap_reached: 429,
  burst_limited: 429,
  key_issue_limit: 429,
  sign_in_limit: 429,
  too_many_streams: 429,
  streams_at_capacity: 503,
  session_not_committed: 404,
  board_unknown: 404,
  board_too_old: 410,
};

/** The one error body shape of the whole API (x402, RFC 6749 and MPP bodies excepted). */
export const ErrorBody = z.object({
  error: z.object({
    code: ErrorCode,
    message: z.string(),
    status: z.number().int().min(400).max(599),
    param: z.string().optional(),
    retry_after_seconds: z.number().int().min(0).optional(),
    allowed_methods: z.array(z.string()).optional(),
    docs: z.string().optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The bus error headers of the NATS services API. */
export const BUS_ERROR_HEADERS = {
  code: "Nats-Service-Error-Code",
  reason: "Nats-Service-Error",
} as const;
