import type { RailDownReason } from "@board/proto";

/** Why a rail is in its state, as logged: stable codes. */
export type RailReason = "backend_answered" | RailDownReason;

/** What a rail's check finds missing in a backend that answered (the backend_* reasons are reachability's). */
export type RailCheckReason = Exclude<RailDownReason, "backend_unreachable" | "backend_timeout" | "backend_error">;

/** What a log line may say of a check: chain ids, addresses, names, amounts. Never a URL or a key. */
export type SafeFields = Record<string, string | number | boolean | null>;

/**
 * A rail's backend answered, and lacks what the rail needs (another chain, no token, the wrong
 * EIP-712 domain, a facilitator that cannot pay fees): the rail is down with this reason, and
 * asked again on the backoff like an unreachable one (an operator may fund the account, or point
 * the RPC elsewhere). The message is ours, and says what to fix.
 */
export class RailCheckFailed extends Error {
  override readonly name = "RailCheckFailed";
  constructor(
    readonly reason: RailCheckReason,
    message: string,
    readonly fields: SafeFields = {},
  ) {
    super(message);
  }
}

/** A rail's bring-up that took longer than its time limit. */
export class BringUpTimeout extends Error {
  override readonly name = "BringUpTimeout";
}

/** Connection-level failures: nothing answered at all. */
const UNREACHABLE = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|EPIPE|UND_ERR_\w+)$/;

/** The error and its causes, outermost first (bounded: a cause chain may loop). */
function chain(err: unknown): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let e = err, depth = 0; typeof e === "object" && e !== null && depth < 6; depth++) {
    const record = e as Record<string, unknown>;
    out.push(record);
    e = record["cause"];
  }
  return out;
}

/** The reason code of a failed bring-up. Never the error's text: it may hold an RPC URL with its API key. */
export function reasonOf(err: unknown): RailDownReason {
  if (err instanceof RailCheckFailed) return err.reason;
  const errors = chain(err);
  if (errors.some((e) => e instanceof BringUpTimeout || e["name"] === "TimeoutError")) return "backend_timeout";
  if (errors.some((e) => typeof e["code"] === "string" && UNREACHABLE.test(e["code"]))) return "backend_unreachable";
  // undici's fetch: "fetch failed" with the socket's error as cause (or none when it lacks a code).
  if (errors.some((e) => e instanceof TypeError && e.message === "fetch failed")) return "backend_unreachable";
  return "backend_error";
}

/** The system error code and HTTP status of a failed bring-up, when it has them: safe to log, unlike its text. */
export function causeOf(err: unknown): { cause?: string; http_status?: number } {
  const errors = chain(err);
  const code = errors.map((e) => e["code"]).find((c): c is string => typeof c === "string" && /^[A-Z][A-Z0-9_]{1,40}$/.test(c));
  const status = errors.map((e) => e["status"]).find((s): s is number => typeof s === "number" && s >= 100 && s < 600);
  return { ...(code ? { cause: code } : {}), ...(status ? { http_status: status } : {}) };
}

/**
 * What a log line says of any failure: a stable reason code (the error's own `reason` or bus
 * code when it has one, else the backend reason above), its type, and the safe detail of
 * causeOf. Never the error itself: viem's errors carry the RPC URL, API key included, in their
 * message, details and url (the log serializer strips those too, as a second line).
 */
export function failureFields(err: unknown): { reason: string; error: string; cause?: string; http_status?: number } {
  const own = chain(err)
    .map((e) => e["reason"] ?? (e["name"] === "BusError" ? e["code"] : undefined))
    .find((r): r is string => typeof r === "string" && /^[a-z][a-z0-9_]{1,60}$/.test(r));
  const name = err instanceof Error ? err.name : typeof err;
  return { reason: own ?? reasonOf(err), error: /^[\w$]{1,60}$/.test(name) ? name : "Error", ...causeOf(err) };
}
