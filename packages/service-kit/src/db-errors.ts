/** Socket errors that mean the database could not be reached (or was lost mid-query). */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/**
 * SQLSTATEs of a server that is there but cannot serve: connection exceptions, shutting down,
 * starting, full; and the bounds of db.ts: a statement cancelled (57014, statement_timeout),
 * a session ended for idling in a transaction (25P03).
 */
const UNAVAILABLE_STATE = /^(08|57P0[123]$|53300$|57014$|25P03$)/;

/**
 * node-postgres's own words for a lost or unobtainable connection, and for a query it gave up
 * on (query_timeout: a server that does not answer at all); these errors carry no code.
 */
const LOST_CONNECTION = /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection ended|Query read timeout/i;

/** pg's error for a query whose answer did not come within query_timeout. */
export const isQueryReadTimeout = (err: unknown): boolean => err instanceof Error && err.message === "Query read timeout";

/**
 * Whether an error (or any error it wraps: drizzle puts the driver's in `cause`) says the
 * database is unreachable or did not answer within its bounds, as opposed to a query that
 * failed. A handler that meets one answers 503 service_unavailable: the caller may retry. A
 * statement cancelled by the server was rolled back; one abandoned by the client (a read
 * timeout) may have run, which is why payments leaves what it cannot confirm to reconciliation.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (NETWORK_CODES.has(code) || UNAVAILABLE_STATE.test(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && LOST_CONNECTION.test(message)) return true;
  }
  return false;
}
