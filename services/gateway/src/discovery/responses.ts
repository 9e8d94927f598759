import { STATUS_CODES } from "node:http";
import type { RouteConfig, ZodRequestBody } from "@asteasolutions/zod-to-openapi";
import { BOARD_EVENTS_PATH, EVENT_STREAM_DEFAULTS, FRESHNESS_HEADERS, MCP_LIVE_PATH, RECEIPT_PATH, X402_DISCOVERY_RESOURCES_PATH, type ErrorCode, type Route } from "@board/proto";
import { CORS_EXPOSED_HEADERS } from "../http/cors.js";
import { MCP_SESSION_HEADER, RESPONSE_HEADERS } from "../http/headers.js";
import { authorizationServerMetadata, protectedResourceMetadata, protectedResourceMetadataPath } from "../oauth/server.js";
import { API_CATALOG_TYPE, SERVER_CARD_TYPE } from "./api-catalog.js";
import { readBody } from "./bodies.js";
import { byStatus, failuresOf } from "./failures.js";
import { content, json, ref } from "./refs.js";
import { schemaOfValue, type JsonSchema } from "./schemas.js";

export type Responses = RouteConfig["responses"];
export type Method = Lowercase<Route["methods"][number]>;

/** Response headers, declared once (http/headers.ts), with the CORS pair every answer carries (http/cors.ts). */
export const HEADERS = {
  ...RESPONSE_HEADERS,
  "Access-Control-Allow-Origin": {
    description: "CORS, on every answer (errors, 402s and 304s too): any origin may read it. Credentials travel in headers, never cookies, so no Access-Control-Allow-Credentials is sent.",
    schema: { type: "string", const: "*" },
  },
  "Access-Control-Expose-Headers": {
    description: "CORS, on every answer: the response headers a page of another origin may read besides the CORS-safelisted ones.",
    schema: { type: "string", const: CORS_EXPOSED_HEADERS.join(", ") },
  },
} satisfies Record<string, { description: string; schema: JsonSchema }>;

const headers = (...names: (keyof typeof HEADERS)[]) => Object.fromEntries(names.map((n) => [n.split(".")[0]!, ref("headers", n)]));
const FRESHNESS = [FRESHNESS_HEADERS.marketOpen, FRESHNESS_HEADERS.nextRefresh, FRESHNESS_HEADERS.dataAge, FRESHNESS_HEADERS.dataDelay] as const;
const RATE_LIMIT = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"] as const;

const errorSchema = (codes: readonly ErrorCode[]): JsonSchema => ({
  allOf: [ref("schemas", "ErrorBody"), { type: "object", properties: { error: { type: "object", properties: { code: { enum: [...codes] } } } } }],
});

const phrase = (status: number) => STATUS_CODES[status] ?? `Status ${status}`;

/** The error responses of a route, one per status, each naming the reason codes it can carry. */
export function failureResponses(route: Route): Responses {
  const responses: Responses = {};
  for (const [status, codes] of byStatus(failuresOf(route))) {
    const listed = `Reason codes: ${codes.join(", ")}.`;
    if (status === 402 && route.kind === "paid") {
      responses["402"] = {
        description:
          "Payment required, or a payment or sign-in was refused (the body's `error` says which). The offers are in PAYMENT-REQUIRED (x402 v2) and in the body " +
          `(x402 v1 dialect, the v2 PaymentRequired under \`v2\`); the MPP challenge in WWW-Authenticate. A refused MPP credential is answered with problem+json. ${listed}`,
        headers: headers("PAYMENT-REQUIRED", "WWW-Authenticate.Payment"),
        content: content({ "application/json": ref("schemas", "PaymentRequiredBody"), "application/problem+json": ref("schemas", "MppProblem") }),
      };
      continue;
    }
    const retry = status === 429 || status === 502 || status === 503 || status === 504;
    const extra = [
      ...(retry ? (["Retry-After"] as const) : []),
      ...(codes.includes("daily_cap_reached") ? RATE_LIMIT : []),
      ...(codes.includes("credential_required") || codes.includes("token_invalid") ? (["WWW-Authenticate.Bearer"] as const) : []),
    ];
    responses[String(status)] = {
      description: `${phrase(status)}. ${listed}`,
      ...(extra.length > 0 ? { headers: headers(...extra) } : {}),
      content: json(errorSchema(codes)),
    };
  }
  return responses;
}

const CORS = headers("Access-Control-Allow-Origin", "Access-Control-Expose-Headers");

/**
 * The success responses of a route, each declaring the CORS headers. Every answer carries them,
 * as the info states once; declared on each of the three hundred error responses too they
 * would grow the document by about a sixth.
 */
export function successResponses(route: Route, method: Method, base: URL): Responses {
  const responses = routeSuccessResponses(route, method, base);
  for (const [status, r] of Object.entries(responses)) {
    if (!("$ref" in r) && (status.startsWith("2") || status === "304")) responses[status] = { ...r, headers: { ...r.headers, ...CORS } };
  }
  return responses;
}

function routeSuccessResponses(route: Route, method: Method, base: URL): Responses {
  const body = readBody(route);
  const bodySchema: JsonSchema = body ? ref("schemas", body.name) : { type: "object", description: "A live-tier read; its shape is published when the read is served." };
  switch (route.kind) {
    case "free":
      if (route.path === BOARD_EVENTS_PATH) return eventStreamResponses(route);
      if (route.path === RECEIPT_PATH) return receiptResponses(route);
      return {
        "200": { description: route.summary, headers: headers("ETag", "Cache-Control", ...FRESHNESS), content: json(bodySchema) },
        "304": { description: "Not modified: the If-None-Match ETag is current.", headers: headers("ETag", ...FRESHNESS) },
      };
    case "paid":
      return {
        "200": {
          description: `${route.summary} Served after the payment settled (receipt in PAYMENT-RESPONSE or Payment-Receipt), or on a license key, bearer${
            route.tiers.includes("free_key") ? ", free key or wallet sign-in (with the tier block and RateLimit headers)" : ""
          }${route.freeVariant ? `, or free with ${route.freeVariant.param}=${route.freeVariant.value}` : ""}.`,
          headers: headers("ETag", "Cache-Control", ...FRESHNESS, "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE", "Payment-Receipt", "Payment-Redelivery", "X-Board-Tier", ...(route.tiers.includes("free_key") ? RATE_LIMIT : [])),
          content: json(bodySchema),
        },
        ...(route.freeVariant
          ? { "304": { description: `Not modified (only the free ${route.freeVariant.param}=${route.freeVariant.value} read is conditional).`, headers: headers("ETag", ...FRESHNESS) } }
          : {}),
      };
    case "live":
      return { "200": { description: route.summary, headers: headers("ETag", "Cache-Control", ...FRESHNESS, "X-Board-Tier"), content: json(bodySchema) } };
    case "mcp":
      return route.path === "/mcp" ? mcpSessionResponses(method) : mcpResponses();
    case "page":
      return {
        "200": { description: route.summary, headers: headers("ETag", "Cache-Control"), content: content({ "text/html": { type: "string" } }) },
        "304": { description: "Not modified: the If-None-Match ETag is current.", headers: headers("ETag") },
        "503": {
          description: "The page without the free slice, while the board has none to draw (warming up or unreachable): prices and documents still shown; do not keep it.",
          headers: headers("Retry-After", "Cache-Control"),
          content: content({ "text/html": { type: "string" } }),
        },
      };
    case "discovery":
      return discoveryResponses(route, method);
    case "auth":
      return authResponses(route, method, base);
  }
}

/** A paid read's receipt: where its settlement stands, with the receipt headers a delivery of it carries now. */
function receiptResponses(route: Route): Responses {
  return {
    "200": {
      description:
        `${route.summary} A settlement answered before its block is \`pending\` until its transaction is deep enough, then \`final\` with a receipt signed again as final ` +
        "(or `lost`: its transfer failed after the read was served; no receipt header then). Retry-After (seconds) comes with a pending one.",
      headers: headers("Cache-Control", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE", "Retry-After"),
      content: json(ref("schemas", "PaidReadReceipt")),
    },
  };
}

/** The push feed: one long-lived 200 whose body is Server-Sent Events, each event's data a BoardPublishedEvent. */
function eventStreamResponses(route: Route): Responses {
  return {
    "200": {
      description:
        `${route.summary} The body is text/event-stream and stays open: first \`retry: <ms>\` (about ${EVENT_STREAM_DEFAULTS.retryMs / 1000} s, with jitter), ` +
        "then the newest published board (or, with Last-Event-ID, those published since), then one event per board as it is published. " +
        "Each event is `id: <seq>` (the board's commitment seq in /api/board/proof, monotonic) and `data: <BoardPublishedEvent as one line of JSON>`, of the default type (message). " +
        `A comment line (\`:\`) every ${EVENT_STREAM_DEFAULTS.heartbeatSeconds} s keeps proxies from closing an idle stream. ` +
        "A client that does not read is disconnected rather than buffered for; it resumes with Last-Event-ID. HEAD answers the headers only.",
      headers: headers("Cache-Control", "X-Accel-Buffering"),
      // Each event's fields, as SSE tooling reads a text/event-stream schema (OpenAPI 3.1 has no item schema for streams).
      content: content({
        "text/event-stream": {
          type: "object",
          description: "One event of the stream (comments and the retry field between events carry no data).",
          properties: {
            id: { type: "string", pattern: "^\\d+$", description: "The board's commitment seq: what Last-Event-ID sends back." },
            data: { ...ref("schemas", "BoardPublishedEvent"), description: "One line of JSON." },
          },
          required: ["id", "data"],
        },
      }),
    },
  };
}

function discoveryResponses(route: Route, method: Method): Responses {
  const ok = (byType: Record<string, JsonSchema>) => ({
    "200": { description: route.summary, headers: headers("ETag", "Cache-Control", "Link"), ...(method !== "head" ? { content: content(byType) } : {}) },
    "304": { description: "Not modified: the If-None-Match ETag is current.", headers: headers("ETag") },
  });
  switch (route.path) {
    case "/api":
      return {
        "402": {
          description: "Always 402: the catalogue of every paid route, its price, its tiers and every offer (x402 v2 and v1 dialect, MPP).",
          content: json(ref("schemas", "OfferCatalogue")),
        },
      };
    case "/openapi.json":
      return ok({ "application/json": { type: "object", description: "This document (OpenAPI 3.1)." } });
    case "/llms.txt":
      return ok({ "text/markdown": { type: "string" } });
    case "/.well-known/api-catalog":
      return ok({ [API_CATALOG_TYPE]: ref("schemas", "Linkset") });
    case "/.well-known/x402":
      return ok({
        "application/json": {
          type: "object",
          description: "The x402 discovery document (version 1): every paid resource's URL, ready to probe, and how to call them.",
          required: ["version", "resources"],
          properties: {
            version: { const: 1 },
            resources: { type: "array", items: { type: "string", format: "uri" } },
            ownershipProofs: { type: "array", items: { type: "string" } },
            description: { type: "string" },
            instructions: { type: "string" },
          },
        },
      });
    case X402_DISCOVERY_RESOURCES_PATH:
      return {
        "200": {
          description: route.summary,
          headers: headers("Cache-Control"),
          content: json({
            type: "object",
            description: "x402 bazaar's list of discovery resources: x402Version, items (resource, type, x402Version, accepts, lastUpdated, extensions.bazaar), pagination.",
            required: ["x402Version", "items", "pagination"],
            properties: {
              x402Version: { const: 2 },
              items: {
                type: "array",
                items: {
                  type: "object",
                  required: ["resource", "type", "x402Version", "accepts", "lastUpdated"],
                  properties: {
                    resource: { type: "string", format: "uri" },
                    type: { const: "http" },
                    x402Version: { const: 2 },
                    accepts: { type: "array", items: { type: "object" }, description: "The offers the resource's 402 gives (x402 v2 PaymentRequirements)." },
                    lastUpdated: { type: "string", format: "date-time" },
                    description: { type: "string" },
                    mimeType: { type: "string" },
                    serviceName: { type: "string" },
                    tags: { type: "array", items: { type: "string" } },
                    extensions: { type: "object", description: "bazaar: the resource's declaration, as its 402 carries it." },
                  },
                },
              },
              pagination: {
                type: "object",
                required: ["limit", "offset", "total"],
                properties: { limit: { type: "integer" }, offset: { type: "integer" }, total: { type: "integer" } },
              },
            },
          }),
        },
      };
    case "/.well-known/did.json":
      return {
        "200": {
          description: "The did:web document of the keys that sign offers and receipts: every key ever used, so an old receipt still verifies.",
          headers: headers("Cache-Control"),
          content: content({ "application/did+json": ref("schemas", "DidDocument") }),
        },
        "404": { description: "not_found: nothing is sold here (no payment rail is configured), so no receipt key exists.", content: json(ref("schemas", "ErrorBody")) },
      };
    default:
      return ok({ "application/json": ref("schemas", "ServerCard"), [SERVER_CARD_TYPE]: ref("schemas", "ServerCard") });
  }
}

function mcpResponses(): Responses {
  const rpc = json(ref("schemas", "JsonRpcResponse"));
  return {
    "200": { description: "The JSON-RPC answer (a result, or a JSON-RPC error such as an unknown tool). Tool refusals are tool results with isError.", content: rpc },
    "202": { description: "A notification or response was accepted; no body." },
    "400": { description: "Not a valid JSON-RPC message (JSON-RPC error, id null).", content: rpc },
    "406": { description: "The Accept header must list application/json and text/event-stream.", content: rpc },
    "413": { description: "The message is larger than the server reads.", content: rpc },
    "415": { description: "The body must be application/json.", content: rpc },
    "500": { description: "The request failed on our side.", content: rpc },
  };
}

const SESSION_GONE = "The Mcp-Session-Id names no session of this replica (it ended: DELETE or idle; or it lives on another replica): initialize again without it.";

/** /mcp with sessions: POST as above (an initialize opens a session), GET a session's notification stream, DELETE its end. */
function mcpSessionResponses(method: Method): Responses {
  const rpc = json(ref("schemas", "JsonRpcResponse"));
  const needsSession = { description: "Bad Request: Mcp-Session-Id is required (a stream or an end is of a session).", content: rpc };
  const gone = { description: SESSION_GONE, content: rpc };
  switch (method) {
    case "post": {
      const { "200": _answer, ...rest } = mcpResponses();
      return {
        "200": {
          description:
            "The JSON-RPC answer (a result, or a JSON-RPC error such as an unknown tool). Tool refusals are tool results with isError. " +
            "The answer to an initialize opens a session and carries its Mcp-Session-Id (unless this replica holds all the sessions it may, or the client address does: then it is answered without one, and resources cannot be subscribed to).",
          headers: headers(MCP_SESSION_HEADER),
          content: rpc,
        },
        ...rest,
        "404": gone,
      };
    }
    case "get":
      return {
        "200": {
          description:
            "The session's notification stream (Server-Sent Events, each event's data one JSON-RPC message): notifications/resources/updated {uri} for each subscribed resource a published board changed, " +
            "and a comment every 15 s. One stream per session; it keeps the session from idling.",
          headers: headers("Cache-Control", "X-Accel-Buffering"),
          content: content({ "text/event-stream": { type: "string" } }),
        },
        "400": needsSession,
        "404": gone,
        "406": { description: "The Accept header must list text/event-stream.", content: rpc },
        "409": { description: "The session has its stream open already.", content: rpc },
      };
    default:
      return { "200": { description: "The session is ended: its stream closes, and its id meets 404 from now on." }, "400": needsSession, "404": gone };
  }
}

function authResponses(route: Route, method: Method, base: URL): Responses {
  const noStore = headers("Cache-Control");
  switch (route.path) {
    case "/api/key":
      return { "201": { description: "A free key, shown once and stored only as a hash, with the free tier's terms.", headers: noStore, content: json(ref("schemas", "FreeKeyReply")) } };
    case "/api/auth/nonce":
      return { "200": { description: "The sign-in challenge and the exact CAIP-122 message to sign.", headers: noStore, content: json(ref("schemas", "SignInChallengeReply")) } };
    case "/api/auth/verify":
      return { "201": { description: "A wallet-tier key for X-Board-Key: the address's daily reads, shared with its sign-in sessions.", headers: noStore, content: json(ref("schemas", "WalletKeyReply")) } };
    case "/oauth/token":
      return {
        "200": {
          description: "A bearer token for the live tier; with a refresh_token on the code and refresh grants (use it once: the answer carries the next one).",
          headers: noStore,
          content: json(ref("schemas", "AccessToken")),
        },
        "400": {
          description: "RFC 6749 5.2 error: invalid_request, invalid_grant, unsupported_grant_type, invalid_scope or unauthorized_client; RFC 8707 invalid_target for a resource not served or not authorized.",
          content: json(ref("schemas", "OAuthError")),
        },
        "401": {
          description: "RFC 6749 5.2 invalid_client: the client id or license key is not valid (WWW-Authenticate: Basic when the client used Basic).",
          content: json(ref("schemas", "OAuthError")),
        },
      };
    case "/oauth/jwks":
      return { "200": { description: "The public keys that verify bearer tokens, a successor included before it signs.", headers: noStore, content: json(ref("schemas", "JwksReply")) } };
    case "/oauth/authorize": {
      const page = content({ "text/html": { type: "string" } });
      const redirect = {
        description:
          "To the client's redirect URI with code (or error and error_description), state and iss (RFC 9207). Errors go there only once the client and its registered redirect URI are known.",
        headers: headers("Location", "Cache-Control"),
      };
      return method === "post"
        ? {
            "302": redirect,
            "400": { description: "The form again with what was wrong (the license key does not prove a license for what was asked), or, for a form that is incomplete, expired or not ours, a page saying so.", content: page },
            "403": { description: "A form posted from another site (Origin or Sec-Fetch-Site) is refused.", content: page },
          }
        : {
            "200": { description: "The consent page: who asks, for what, and a form for the license key (POST /oauth/authorize).", content: page },
            "302": redirect,
            "400": { description: "The client or redirect URI cannot be trusted (unknown client_id, redirect_uri not registered, repeated parameter): a page says so and nothing is redirected.", content: page },
          };
    }
    case "/oauth/register":
      return {
        "201": { description: "The client as registered (RFC 7591 3.2.1); a confidential client's secret is shown here once.", headers: noStore, content: json(ref("schemas", "RegisteredClient")) },
        "400": { description: "RFC 7591 3.2.2: invalid_redirect_uri or invalid_client_metadata.", content: json(ref("schemas", "RegistrationError")) },
      };
    case "/.well-known/oauth-authorization-server": {
      const example = authorizationServerMetadata(base);
      return { "200": { description: route.summary, headers: noStore, content: content({ "application/json": schemaOfValue(example) }, { example }) } };
    }
    case protectedResourceMetadataPath("api"):
    case protectedResourceMetadataPath("mcp_live"): {
      const example = protectedResourceMetadata(base, route.path === protectedResourceMetadataPath("mcp_live") ? "mcp_live" : "api");
      return { "200": { description: route.summary, headers: noStore, content: content({ "application/json": schemaOfValue(example) }, { example }) } };
    }
    default:
      throw new Error(`no responses declared for ${route.path}`);
  }
}

/** Request bodies of the routes that take one. */
export function requestBody(route: Route): ZodRequestBody | undefined {
  switch (route.path) {
    case "/api/key":
      return { required: true, content: json(ref("schemas", "FreeKeyRequest")) };
    case "/api/auth/verify":
      return { required: true, description: "The signed sign-in: the challenge's fields plus address, chainId, type and signature (the JSON SIGN-IN-WITH-X carries in base64).", content: json(ref("schemas", "SignInPayload")) };
    case "/oauth/token":
      return { required: true, content: content({ "application/x-www-form-urlencoded": ref("schemas", "TokenForm") }) };
    case "/oauth/authorize":
      return { required: true, content: content({ "application/x-www-form-urlencoded": ref("schemas", "ConsentForm") }) };
    case "/oauth/register":
      return { required: true, content: json(ref("schemas", "ClientRegistration")) };
    case "/mcp":
      return {
        required: true,
        description:
          "A JSON-RPC message (Streamable HTTP). Send Accept: application/json, text/event-stream, and the session's Mcp-Session-Id once an initialize gave one; without one, any message is answered on its own.",
        content: json(ref("schemas", "JsonRpcRequest")),
      };
    case MCP_LIVE_PATH:
      return {
        required: true,
        description: "A JSON-RPC message (Streamable HTTP, stateless). Send Accept: application/json, text/event-stream.",
        content: json(ref("schemas", "JsonRpcRequest")),
      };
    default:
      return undefined;
  }
}
