/** Why a rail is in its state, as logged: stable codes. */
export type RailReason = "backend_answered" | "backend_unreachable" | "backend_timeout" | "backend_error";

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
export function reasonOf(err: unknown): RailReason {
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
