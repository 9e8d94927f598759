// Errors are data: every call answers `{ ok: true, ... }` or `{ ok: false, error }`, and an
// error carries a stable snake_case reason code a program can act on. The board's own codes
// (proto's ErrorCode: payment_already_used, daily_cap_reached, ...) pass through unchanged;
// the client adds its own for what happens on this side of the wire.

import { ErrorCode, OAuthErrorCode } from "@board/proto";

/** Reasons the client itself gives (nothing was asked of the board, or its answer was unusable). */
export const ClientErrorCode = [
  /** The board could not be reached (not running, wrong URL, connection reset). */
  "network_error",
  /** The board answered something that is not its documented shape. */
  "invalid_response",
  /** The path is not one of the board's routes. */
  "unknown_route",
  /** Paying would take today's spending past the daily cap: nothing was signed or sent. */
  "daily_cap_exceeded",
  /** One call costs more than the per-call maximum (the MCP proxy's): nothing was signed or sent. */
  "price_above_limit",
  /** The 402 offered nothing the configured payer can pay (no offer on its network). */
  "no_matching_offer",
  /** The payer could not sign a payment (a wallet or chain error before anything was sent). */
  "payment_not_created",
  /** Wallet sign-in failed before the board judged it (signing, challenge). */
  "sign_in_failed",
  /** A dependency answered with an error (a chain's RPC while reading a balance). */
  "chain_error",
] as const;
export type ClientErrorCode = (typeof ClientErrorCode)[number];

export type ErrorReason = ClientErrorCode | ErrorCode | OAuthErrorCode;

export interface ClientError {
  code: ErrorReason;
  message: string;
  /** The HTTP status, when the board answered. */
  status?: number;
  /** Seconds to wait before asking again (429 and 503 Retry-After). */
  retry_after_seconds?: number;
  /** The price the read asked, in USDC base units (402s, cap refusals). */
  price?: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ClientError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (code: ErrorReason, message: string, extra: Omit<ClientError, "code" | "message"> = {}): { ok: false; error: ClientError } => ({
  ok: false,
  error: { code, message, ...extra },
});

const KNOWN = new Set<string>([...ClientErrorCode, ...ErrorCode.options, ...OAuthErrorCode.options]);
const asReason = (code: unknown): ErrorReason | null => (typeof code === "string" && KNOWN.has(code) ? (code as ErrorReason) : null);

/**
 * The error a non-2xx answer stands for, from whichever body the board uses there: its own
 * `{ error: { code, message } }`, an x402 402 body (`error` is the reason code), MPP's
 * problem+json (`code`), or an RFC 6749 token error (`error`, `error_description`).
 */
export async function errorFromResponse(res: Response): Promise<ClientError> {
  const status = res.status;
  const retry = Number(res.headers.get("retry-after"));
  const extra: Omit<ClientError, "code" | "message"> = { status, ...(Number.isFinite(retry) && retry > 0 ? { retry_after_seconds: retry } : {}) };
  let body: unknown = null;
  try {
    body = JSON.parse(await res.text());
  } catch {
    // Not JSON: fall through to the status alone.
  }
  const b = (body ?? {}) as Record<string, unknown>;
  const nested = typeof b.error === "object" && b.error !== null ? (b.error as Record<string, unknown>) : null;
  const code = asReason(nested?.code) ?? asReason(b.error) ?? asReason(b.code);
  const message = [nested?.message, b.message, b.detail, b.error_description, b.title].find((m): m is string => typeof m === "string");
  if (nested && typeof nested.retry_after_seconds === "number") extra.retry_after_seconds = nested.retry_after_seconds;
  if (code) return { code, message: message ?? code, ...extra };
  return { code: codeForStatus(status), message: message ?? `the board answered HTTP ${status}`, ...extra };
}

function codeForStatus(status: number): ErrorReason {
  if (status === 402) return "payment_required";
  if (status === 429) return "rate_limited";
  if (status === 503) return "service_unavailable";
  if (status === 504) return "upstream_timeout";
  if (status >= 500) return "upstream_error";
  if (status === 404) return "not_found";
  return "invalid_response";
}

/** A thrown fetch failure, said plainly (the cause of undici's "fetch failed" is the useful part). */
export function networkError(url: string, err: unknown): ClientError {
  const cause = (err as { cause?: { code?: string; message?: string } } | null)?.cause;
  const origin = safeOrigin(url);
  const why =
    cause?.code === "ECONNREFUSED"
      ? "connection refused: is the board running there?"
      : cause?.code === "ENOTFOUND"
        ? "no such host"
        : (cause?.message ?? (err instanceof Error ? err.message : String(err)));
  return { code: "network_error", message: `cannot reach ${origin} (${why})` };
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
