import {
  ACCESS_TOKEN_SCOPE,
  ACCESS_TOKEN_SECONDS,
  API_VERSION,
  BOARD_EVENTS_PATH,
  CLIENT_ADDRESS_IPV6_PREFIX,
  DEFAULT_BURST,
  DEFAULT_NEW_CREDENTIAL_LIMITS,
  EVENT_STREAM_DEFAULTS,
  FREE_DAILY_LIMIT,
  FREE_KEY_IDLE_DAYS,
  MAX_BATCH,
  NEW_CREDENTIAL_WINDOW_SECONDS,
  PAID_ROUTES,
  PRODUCT,
  REFUSED_CREDENTIAL_SECONDS,
  SIGN_IN_SESSION_SECONDS,
  type Route,
  type Tier,
} from "@board/proto";
import { CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, CORS_REQUEST_HEADERS } from "../http/cors.js";
import { CREDENTIAL_HEADERS } from "../http/headers.js";

/**
 * The service's terms as every discovery document states them: one wording, built from the
 * constants proto holds, so /openapi.json and /llms.txt cannot disagree.
 */

export const SERVICE_NAME = PRODUCT;
export const SERVICE_TITLE = "Scored Market Board";
export const SERVICE_VERSION = API_VERSION;

export const SERVICE_SUMMARY =
  "A per-read paid research board: scores for about 565 names (S&P 500, Nasdaq-100, macro and sector ETFs, BTC-USD and ETH-USD), " +
  "per-book regime verdicts, sector cards and buy-list lanes, refreshed about every 5 minutes of US market hours. " +
  "Sold per read in USDC over x402 and MPP; small free slices for everyone. Research, not investment advice.";

/** USDC base units (6 decimals) as a decimal amount: 5000n -> "0.005". */
export function usdc(units: bigint): string {
  const whole = units / 1_000_000n;
  const fraction = (units % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return fraction.length > 0 ? `${whole}.${fraction}` : whole.toString();
}

/** A price as people read it: "0.005 USDC (5000 base units)". */
export const priceWords = (route: Route) => (route.price === null ? "free" : `${usdc(route.price)} USDC (${route.price} base units)`);

/** Whether a free key or a signed-in wallet may also read this paid route, within the daily limit. */
export const isFreeTierRoute = (route: Route) => route.kind === "paid" && route.tiers.includes("free_key");

export const FREE_TIER_ROUTES: readonly Route[] = PAID_ROUTES.filter(isFreeTierRoute);

const cheapest = PAID_ROUTES.reduce((min, r) => (r.price !== null && r.price < min ? r.price : min), PAID_ROUTES[0]?.price ?? 0n);
const dearest = PAID_ROUTES.reduce((max, r) => (r.price !== null && r.price > max ? r.price : max), 0n);
export const PRICE_RANGE = `${usdc(cheapest)} to ${usdc(dearest)} USDC per read`;

export const BURST_TERMS =
  `Burst limit: a token bucket of ${DEFAULT_BURST.principal.capacity} requests per principal (free key, wallet, license), ` +
  `refilled at ${DEFAULT_BURST.principal.per_second} per second, and of ${DEFAULT_BURST.anonymous.capacity} per client address (an IPv6 client counts as its /${CLIENT_ADDRESS_IPV6_PREFIX}), ` +
  `refilled at ${DEFAULT_BURST.anonymous.per_second} per second. The client address's bucket is spent by every request without a credential and, first, by every request carrying a credential or a payment ` +
  `(before the credential is looked up or the payment checked), by POST /oauth/token, and by every MCP tools/call, paid calls included; one tools/call per MCP POST (a JSON-RPC batch holding one is refused, error -32600). ` +
  `Past it the answer is 429 burst_limited with Retry-After; a burst-limited read spends no daily read. ` +
  `A key, license or bearer refused as unknown or invalid is refused again for ${REFUSED_CREDENTIAL_SECONDS} seconds without being looked up. ` +
  `When the limiter does not answer, requests carrying a credential or a payment get 503 service_unavailable with Retry-After; free reads without one are served. Pace requests sequentially.`;

/** The words below say "an hour": a compile error here if the window changes. */
const _hourWindow: 3600 = NEW_CREDENTIAL_WINDOW_SECONDS;

/** Each email and each wallet is a fresh daily count, so how many one client address may start is limited. */
export const NEW_CREDENTIAL_TERMS =
  `One client address (an IPv6 address counts as its /64) is given at most ${DEFAULT_NEW_CREDENTIAL_LIMITS.free_key} free keys an hour (every key POST /api/key issues counts, the same email again too; ` +
  `past it 429 key_issue_limit with Retry-After) and signs in at most ${DEFAULT_NEW_CREDENTIAL_LIMITS.wallet} different wallets an hour (a wallet counts once, by POST /api/auth/verify or SIGN-IN-WITH-X alike, ` +
  `so re-signing a session costs nothing; past it 429 sign_in_limit with Retry-After, and wallets already counted keep reading).`;

export const FREE_TIER_TERMS =
  `Free tier: ${FREE_DAILY_LIMIT} reads a day per free key or per signed-in wallet address (a key and the address's sign-in sessions share one count), ` +
  `across ${FREE_TIER_ROUTES.map((r) => r.path).join(", ")}. The day is the UTC day; the count starts again at 00:00 UTC. ` +
  `Every free-tier 200 carries a tier block (used_today, limit, remaining, reset_at) and RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset headers; ` +
  `past the limit the answer is 429 daily_cap_reached with Retry-After. Free keys expire after ${FREE_KEY_IDLE_DAYS} days without use. ` +
  NEW_CREDENTIAL_TERMS;

/** SPEC.md 8, with the values the service runs with. */
export const LIMITS: readonly { readonly name: string; readonly value: string; readonly applies: string }[] = [
  { name: "Free-tier reads", value: `${FREE_DAILY_LIMIT} per UTC day`, applies: "per free key, and per wallet address (its sign-in sessions and wallet key together)" },
  { name: "Free key inactivity expiry", value: `${FREE_KEY_IDLE_DAYS} days`, applies: "free keys and wallet keys" },
  { name: "Wallet sign-in session", value: `issuedAt plus ${SIGN_IN_SESSION_SECONDS / 60} minutes`, applies: "one SIGN-IN-WITH-X header" },
  { name: "Bearer token lifetime", value: `${ACCESS_TOKEN_SECONDS} seconds, scope ${ACCESS_TOKEN_SCOPE}`, applies: "POST /oauth/token" },
  { name: "Batch size", value: `1 to ${MAX_BATCH} symbols, comma-separated (sym=AAPL,MSFT) or repeated (sym=AAPL&sym=MSFT), at the single-name price`, applies: "/api/board/name and /api/board/hold" },
  { name: "Preview", value: "top 3 names per book, previous trading day, no call cap", applies: "/api/board/agent?preview=1" },
  { name: "Leaders", value: "10 per book", applies: "/api/board/leaders" },
  { name: "Movers", value: "10 gainers and 10 losers", applies: "/api/board/movers" },
  {
    name: "Burst",
    value: `${DEFAULT_BURST.principal.capacity} per principal refilled ${DEFAULT_BURST.principal.per_second}/s; ${DEFAULT_BURST.anonymous.capacity} per client address (IPv6: per /${CLIENT_ADDRESS_IPV6_PREFIX}) refilled ${DEFAULT_BURST.anonymous.per_second}/s, spent before any credential or payment is checked`,
    applies: "every read, POST /oauth/token and every MCP tools/call; 429 burst_limited with Retry-After",
  },
  { name: "MCP calls per message", value: "one tools/call per POST (a JSON-RPC batch holding one is refused, -32600)", applies: "/mcp and /mcp/live" },
  { name: "Refused credentials", value: `refused again for ${REFUSED_CREDENTIAL_SECONDS} seconds without a lookup`, applies: "an unknown free key or license key, an invalid bearer" },
  {
    name: "New credentials",
    value: `${DEFAULT_NEW_CREDENTIAL_LIMITS.free_key} free keys and ${DEFAULT_NEW_CREDENTIAL_LIMITS.wallet} wallet sign-ins (different wallets) an hour per client address (IPv6: per /64)`,
    applies: "POST /api/key, POST /api/auth/verify and SIGN-IN-WITH-X; 429 key_issue_limit or sign_in_limit with Retry-After",
  },
  { name: "Licensed reads", value: "no daily cap (the burst limit applies)", applies: "X-License-Key and bearer tokens" },
  { name: "Event streams", value: `${EVENT_STREAM_DEFAULTS.perClient} open per client address (IPv6: per /${CLIENT_ADDRESS_IPV6_PREFIX}), per server`, applies: `${BOARD_EVENTS_PATH}; 429 too_many_streams with Retry-After` },
];

/** A credential or payment header of SPEC.md 5 and 4.1: the security schemes of /openapi.json and the tiers of /llms.txt. */
export interface Credential {
  /** The OpenAPI security scheme name. */
  readonly scheme: string;
  readonly header: string;
  /** How the header's value reads ("Bearer <ACCESS_TOKEN>"), for the http schemes. */
  readonly http?: { readonly scheme: string; readonly bearerFormat?: string };
  /** The tiers it opens. */
  readonly tiers: readonly Tier[];
  readonly description: string;
}

export const CREDENTIALS: readonly Credential[] = [
  {
    scheme: "freeKey",
    header: CREDENTIAL_HEADERS.freeKey,
    tiers: ["free_key", "wallet"],
    description: `A free API key from POST /api/key (body {"email": "..."}), or a wallet key from POST /api/auth/verify. ${FREE_DAILY_LIMIT} reads a day across the free-tier reads.`,
  },
  {
    scheme: "signInWithX",
    header: CREDENTIAL_HEADERS.signIn,
    tiers: ["wallet"],
    description:
      `Base64 of a signed CAIP-122 sign-in (the sign-in-with-x extension of any 402, or GET /api/auth/nonce): EVM personal_sign, Solana signMessage or Algorand ed25519. ` +
      `A bearer session until its expirationTime (issuedAt plus ${SIGN_IN_SESSION_SECONDS / 60} minutes); ${FREE_DAILY_LIMIT} reads a day per address. Moves no funds.`,
  },
  {
    scheme: "licenseKey",
    header: CREDENTIAL_HEADERS.license,
    tiers: ["scanner_license", "live_license"],
    description:
      "A purchased license key. A scanner license serves every paid board read live with no daily cap; a live-feed license also opens /api/live/* and the licensed MCP tools. " +
      "X-Board-License-Key is not read.",
  },
  {
    scheme: "bearer",
    header: CREDENTIAL_HEADERS.authorization,
    http: { scheme: "bearer", bearerFormat: "JWT" },
    tiers: ["bearer"],
    description: `An ES256 JWT from POST /oauth/token (client credentials: client_id and the license key as client_secret), valid ${ACCESS_TOKEN_SECONDS} seconds, scope ${ACCESS_TOKEN_SCOPE}, verifiable against /oauth/jwks. The same live tier as its license.`,
  },
  {
    scheme: "x402Payment",
    header: CREDENTIAL_HEADERS.x402,
    tiers: ["x402"],
    description: "An x402 v2 payment payload (base64 JSON) for one read, signed against an offer of the route's 402 (PAYMENT-REQUIRED header). The receipt comes back in PAYMENT-RESPONSE.",
  },
  {
    scheme: "x402PaymentV1",
    header: CREDENTIAL_HEADERS.x402v1,
    tiers: ["x402"],
    description: "The x402 v1 header: a v1 payment payload (offers of the 402 body's accepts, networks base and solana), or a v2 payload sent under this header, the name the original interface gave it.",
  },
  {
    scheme: "mppPayment",
    header: CREDENTIAL_HEADERS.authorization,
    http: { scheme: "Payment" },
    tiers: ["x402"],
    description:
      'Machine Payments Protocol: the 402 carries WWW-Authenticate: Payment (method "usdc", intent "charge", network eip155:8453); answer with Authorization: Payment <credential>, an EIP-3009 authorization for exactly that charge. The receipt comes back in Payment-Receipt.',
  },
];

export const credential = (scheme: string): Credential => {
  const found = CREDENTIALS.find((c) => c.scheme === scheme);
  if (!found) throw new Error(`no credential ${scheme}`);
  return found;
};

/** The schemes that open a route without paying, by the route's tiers. */
export function schemesFor(route: Route): string[] {
  return CREDENTIALS.filter((c) => c.tiers.some((t) => route.tiers.includes(t))).map((c) => c.scheme);
}

export const POLLING_TERMS =
  "Every board read carries a freshness block (market_open, data_age_seconds, next_refresh_at, poll_hint, and data_delay: how late the board's prices were, " +
  "real_time, delayed_15m, end_of_day, simulated or recorded) and the same values in the X-Board-Market-Open, " +
  "X-Board-Next-Refresh, X-Board-Data-Age and X-Board-Data-Delay headers. The board changes at most once per refresh; buying again before next_refresh_at buys the identical payload. " +
  "Poll the free /api/board/state (a content hash per read) and buy only when the hash of the read you want changes. Free reads answer If-None-Match with 304.";

/** The push feed, as an alternative to polling (the gateway's events/ folder; its caps are the defaults of its EVENTS_* variables). */
export const EVENTS_TERMS =
  `Instead of polling, GET ${BOARD_EVENTS_PATH} (free, no credential) is a Server-Sent Events stream (text/event-stream: EventSource, or any SSE client). ` +
  "It opens with retry: and the newest published board, then sends one event per board as it is published: the event's id is the board's commitment seq in /api/board/proof (monotonic), " +
  "its data one line of JSON {seq, asof_daily, computed_at, snapshot, content_hash, commitment, views (the /api/board/state hashes), market_open, next_refresh_at}. " +
  `A comment line every ${EVENT_STREAM_DEFAULTS.heartbeatSeconds} s keeps an idle stream open through proxies. Reconnect with Last-Event-ID (EventSource does) to get the boards published meanwhile; ` +
  "an id older than the server still holds gets the newest board. " +
  `At most ${EVENT_STREAM_DEFAULTS.perClient} open streams per client address (429 too_many_streams) and a cap per server (503 streams_at_capacity), both with Retry-After: EventSource gives up on them, so wait and open a new one. ` +
  "A client that stops reading is disconnected, never buffered for without bound.";

export const HEAD_TERMS = "Every GET route also answers HEAD with the same headers and no body; HEAD never takes a payment and never spends a counted read.";

/** How a page of another origin calls the API (http/cors.ts holds the lists). */
export const CORS_TERMS =
  "Web pages of any origin may call every route: every answer carries Access-Control-Allow-Origin: * " +
  "(credentials travel in headers, never in cookies; fetch's default credentials mode suffices) " +
  `and Access-Control-Expose-Headers: ${CORS_EXPOSED_HEADERS.join(", ")}. ` +
  "A preflight (OPTIONS with Origin and Access-Control-Request-Method) of any route answers 204 with Access-Control-Allow-Methods (the route's methods), " +
  `Access-Control-Allow-Headers: ${CORS_REQUEST_HEADERS.join(", ")}, and Access-Control-Max-Age: ${CORS_MAX_AGE_SECONDS}.`;
