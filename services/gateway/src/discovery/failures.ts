import { BOARD_EVENTS_PATH, CredentialRefusalCode, ERROR_STATUS, ErrorCode, MCP_LIVE_PATH, RECEIPT_PATH, X402_DISCOVERY_RESOURCES_PATH, type Route } from "@board/proto";

/** An error a route can answer with: its reason code and the status it rides on. */
export interface Failure {
  readonly code: ErrorCode;
  readonly status: number;
}

const at = (code: ErrorCode, status = ERROR_STATUS[code]): Failure => ({ code, status });

/** Payment refusals: a 402 that names why the payment was not taken (proto's payment_* codes). */
const PAYMENT_REFUSALS = ErrorCode.options.filter((c) => c.startsWith("payment_"));

/** Refused credentials (identity's resolve): 403 keys and licenses, 401 bearers, 402 sign-ins with a fresh challenge. */
const CREDENTIAL_REFUSALS = CredentialRefusalCode.options;

/** Every request can fail on our side. */
const OURS = [at("internal_error")];

/** A bus request that failed: the service is down, timed out, or failed (SPEC.md 7: retry with backoff). */
const UPSTREAM = [at("upstream_error"), at("service_unavailable"), at("upstream_timeout")];

/** A board read also fails while no snapshot is stored, or a view is not rendered yet. */
const BOARD = [...UPSTREAM, at("snapshot_unavailable"), at("not_implemented")];

const hasQuery = (route: Route) => Object.keys(route.query.shape).length > 0;

/** The history reads' own refusals, worded by the board: what is not committed or no longer kept. */
const HISTORY: Partial<Record<NonNullable<Route["view"]>, Failure[]>> = {
  asof: [at("session_not_committed")],
  changes: [at("board_unknown"), at("board_too_old")],
};

/**
 * What each route can answer besides its success, as the gateway's handlers do it
 * (routing/routes.ts, read.ts, keys.ts, oauth.ts). Bodies are the one error body, except the
 * paid 402s (x402 and MPP bodies), which the payments service writes.
 */
export function failuresOf(route: Route): Failure[] {
  const query = hasQuery(route) ? [at("invalid_query")] : [];
  switch (route.kind) {
    case "free":
      // The event stream is the gateway's own: refused at its caps, never a board read that fails.
      if (route.path === BOARD_EVENTS_PATH) return [at("too_many_streams"), at("burst_limited"), at("streams_at_capacity"), ...UPSTREAM, ...OURS];
      // The receipt lookup asks payments: a payment that bought nothing (or is not settled yet) is not_found.
      if (route.path === RECEIPT_PATH) return [at("invalid_query"), at("invalid_request"), at("not_found"), at("burst_limited"), ...UPSTREAM, ...OURS];
      return [...query, at("burst_limited"), ...BOARD, ...OURS];
    case "paid": {
      const freeTier = route.tiers.includes("free_key") ? [at("daily_cap_reached")] : [];
      // A SIGN-IN-WITH-X header of a wallet new to the client address counts toward its hourly sign-ins.
      const walletTier = route.tiers.includes("wallet") ? [at("sign_in_limit")] : [];
      return [
        ...query,
        ...CREDENTIAL_REFUSALS.map((c) => at(c)),
        at("payment_required"),
        at("route_not_in_tier"),
        ...PAYMENT_REFUSALS.map((c) => at(c)),
        ...freeTier,
        ...walletTier,
        at("burst_limited"),
        ...(route.view ? (HISTORY[route.view] ?? []) : []),
        ...BOARD,
        ...OURS,
      ];
    }
    case "live":
      return [
        ...query,
        at("credential_required"),
        ...CREDENTIAL_REFUSALS.filter((c) => !c.startsWith("sign_in_")).map((c) => at(c)),
        at("forbidden"),
        at("burst_limited"),
        ...BOARD,
        ...OURS,
      ];
    case "discovery":
      // GET /api and the bazaar listing ask payments for offers; the documents are built in the gateway.
      if (route.path === X402_DISCOVERY_RESOURCES_PATH) return [at("invalid_query"), ...UPSTREAM, ...OURS];
      return route.path === "/api" || route.path === "/.well-known/did.json" ? [...UPSTREAM, ...OURS] : OURS;
    case "auth":
      return authFailures(route);
    case "mcp":
      // /mcp/live checks its bearer before any JSON-RPC is read: 401 with the challenge, 403 for a token without the live tier.
      if (route.path === MCP_LIVE_PATH) return [at("credential_required"), at("token_invalid"), at("forbidden"), ...UPSTREAM, ...OURS];
      return OURS;
    case "page":
      return OURS;
  }
}

function authFailures(route: Route): Failure[] {
  switch (route.path) {
    case "/api/key":
      return [at("invalid_request"), at("burst_limited"), at("key_issue_limit"), ...UPSTREAM, ...OURS];
    case "/api/auth/nonce":
      return [at("invalid_query"), at("unknown_chain"), at("invalid_address"), at("burst_limited"), ...UPSTREAM, ...OURS];
    case "/api/auth/verify":
      // A refused signature is a 401 here (no payment is on offer to re-sign against).
      return [at("invalid_request"), at("sign_in_invalid", 401), at("sign_in_expired", 401), at("burst_limited"), at("sign_in_limit"), ...UPSTREAM, ...OURS];
    case "/oauth/token":
      // Its own refusals are RFC 6749 bodies, declared beside these; a POST spends the client address's burst first.
      return [at("burst_limited"), ...UPSTREAM, ...OURS];
    case "/oauth/jwks":
      return [...UPSTREAM, ...OURS];
    case "/oauth/authorize":
    case "/oauth/register":
      // Their own refusals are pages (authorize) and RFC 7591 bodies (register), declared beside these; a POST spends the client address's burst.
      return [at("burst_limited"), ...UPSTREAM, ...OURS];
    default:
      return OURS;
  }
}

/** Failures grouped by status, codes in catalogue order. */
export function byStatus(failures: readonly Failure[]): Map<number, ErrorCode[]> {
  const groups = new Map<number, ErrorCode[]>();
  for (const f of failures) {
    const codes = groups.get(f.status) ?? [];
    if (!codes.includes(f.code)) codes.push(f.code);
    groups.set(f.status, codes);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}
