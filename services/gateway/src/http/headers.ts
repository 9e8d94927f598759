import { DataDelay, DEPRECATION_HEADER, FRESHNESS_HEADERS, SUNSET_HEADER } from "@board/proto";

/**
 * The HTTP headers of the API, named once: the readers, the discovery documents and CORS
 * (http/cors.ts) all take them from here, so a header cannot be read without being allowed
 * cross-origin, or sent without being readable by a page.
 */

/** Request headers carrying a credential or a payment (SPEC.md 5, 4.1 rule 5). */
export const CREDENTIAL_HEADERS = {
  freeKey: "X-Board-Key",
  signIn: "SIGN-IN-WITH-X",
  license: "X-License-Key",
  /** Bearer (the live tier), Payment (MPP), Basic (POST /oauth/token). */
  authorization: "Authorization",
  x402: "PAYMENT-SIGNATURE",
  x402v1: "X-PAYMENT",
} as const;

/** A request header's value as node holds it (names lowercased), when present and not empty. */
export function requestHeader(headers: NodeJS.Dict<string | string[]>, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return typeof v === "string" && v.length > 0 ? v : undefined;
}

/** MCP's session header (Streamable HTTP): set on the answer to an initialize, sent back on every request of the session. */
export const MCP_SESSION_HEADER = "Mcp-Session-Id";

/**
 * The other request headers a client of this API may send cross-origin: a JSON body, a
 * conditional read, an event stream resumed (EventSource sends Last-Event-ID), MCP's
 * transport (its protocol version and session), W3C trace context (continued, http/telemetry.ts), and two
 * that browser payment clients add on their own and must not fail a preflight: @x402/fetch and
 * x402-fetch send Access-Control-Expose-Headers with every payment, mppx sends Accept-Payment.
 */
export const PROTOCOL_REQUEST_HEADERS = [
  "Content-Type",
  "Accept",
  "If-None-Match",
  "Last-Event-ID",
  "Mcp-Protocol-Version",
  MCP_SESSION_HEADER,
  "traceparent",
  "tracestate",
  "Access-Control-Expose-Headers",
  "Accept-Payment",
] as const;

/**
 * The response headers the API sends, described once for OpenAPI (discovery/responses.ts).
 * A header with two uses is named "Header.Use"; the header is the part before the dot.
 */
export const RESPONSE_HEADERS = {
  [FRESHNESS_HEADERS.marketOpen]: { description: "Whether the US market is open now (freshness block).", schema: { type: "string", enum: ["true", "false"] } },
  [FRESHNESS_HEADERS.nextRefresh]: { description: "When the board is expected to change next; do not buy again before it.", schema: { type: "string", format: "date-time" } },
  [FRESHNESS_HEADERS.dataAge]: { description: "Age of the served board in seconds.", schema: { type: "string", pattern: "^\\d+$" } },
  [FRESHNESS_HEADERS.dataDelay]: {
    description: "How late the board's prices were when it was computed (freshness block data_delay); absent when the board did not say.",
    schema: { type: "string", enum: [...DataDelay.options] },
  },
  ETag: { description: "The representation's entity tag; a board read's is a weak hash of the read without its freshness block.", schema: { type: "string" } },
  "Cache-Control": { description: "Caching policy of the response.", schema: { type: "string" } },
  "PAYMENT-REQUIRED": {
    description: "Base64 of the x402 v2 PaymentRequired (schema X402PaymentRequired): every offer, signed (offer-receipt), the bazaar declaration, payment-identifier and the sign-in-with-x challenge.",
    schema: { type: "string", contentEncoding: "base64", contentMediaType: "application/json" },
  },
  "WWW-Authenticate.Payment": {
    description: 'The MPP challenge: Payment id=..., realm=..., method="usdc", intent="charge", request=... (present when MPP is offered).',
    schema: { type: "string" },
  },
  "WWW-Authenticate.Bearer": {
    description: "RFC 6750 challenge naming the resource's RFC 9728 metadata: /.well-known/oauth-protected-resource, or /.well-known/oauth-protected-resource/mcp/live on /mcp/live.",
    schema: { type: "string" },
  },
  Location: { description: "Where the sign-in sends the browser next: the client's redirect URI with the code or the error, state and iss.", schema: { type: "string", format: "uri" } },
  "PAYMENT-RESPONSE": { description: "Base64 x402 settlement receipt (transaction, network, payer, and settlement: pending when the read was answered before its block, final otherwise), on reads paid over x402.", schema: { type: "string" } },
  "X-PAYMENT-RESPONSE": { description: "The same receipt under x402 v1's name, on reads paid with a v1 payment payload.", schema: { type: "string" } },
  "Payment-Redelivery": {
    description:
      "On a paid read delivered again to a retry of the same payment (the same signed payment, or the same payment-identifier id from the same payer): which redelivery this is. The same board version and bytes as first served, with the first receipt; nothing charged again.",
    schema: { type: "integer", minimum: 1 },
  },
  "Payment-Receipt": { description: "The MPP receipt, on reads paid with Authorization: Payment.", schema: { type: "string" } },
  "X-Board-Tier": { description: "The tier a credentialed read was served on.", schema: { type: "string" } },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "string", pattern: "^\\d+$" } },
  "RateLimit-Limit": { description: "The free tier's reads per day (on free-tier reads).", schema: { type: "string", pattern: "^\\d+$" } },
  "RateLimit-Remaining": { description: "Free-tier reads left today.", schema: { type: "string", pattern: "^\\d+$" } },
  "RateLimit-Reset": { description: "Seconds until the daily count starts again (00:00 UTC).", schema: { type: "string", pattern: "^\\d+$" } },
  Link: { description: 'Where the api-catalog of this host is (rel="api-catalog").', schema: { type: "string" } },
  [MCP_SESSION_HEADER]: {
    description: "On the answer to an MCP initialize: the session's id, to send back on each of its requests (a request with an id this replica does not hold is answered 404: initialize again).",
    schema: { type: "string" },
  },
  "X-Accel-Buffering": { description: "On an event stream: no. Proxies that honour it (nginx) pass each event on at once instead of buffering.", schema: { type: "string", const: "no" } },
} satisfies Record<string, { description: string; schema: Record<string, unknown> }>;

/** A deprecated route's headers (http/deprecation.ts): not in RESPONSE_HEADERS while no route is deprecated (an unused component fails its lint). */
export const DEPRECATION_HEADERS = [DEPRECATION_HEADER, SUNSET_HEADER] as const;

/** A 405's list of methods: not in RESPONSE_HEADERS because OpenAPI documents no 405 (an unused component fails its lint). */
export const ALLOW_HEADER = "Allow";

/** Response headers any page may read without CORS naming them (the Fetch standard's CORS-safelisted response-header names). */
export const CORS_SAFELISTED_RESPONSE_HEADERS = ["Cache-Control", "Content-Language", "Content-Length", "Content-Type", "Expires", "Last-Modified", "Pragma"] as const;
