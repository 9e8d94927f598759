import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import { CLIENT_ADDRESS_IPV6_PREFIX, DEFAULT_BURST, FREE_DAILY_LIMIT, FREE_KEY_IDLE_DAYS, MCP_LIVE_PATH, REFUSED_CREDENTIAL_SECONDS, ROUTES, type Route, type RouteKind } from "@board/proto";
import { schemaComponents } from "./bodies.js";
import { deprecationWords } from "./deprecations.js";
import { paymentInfo, x402Info } from "./offers.js";
import { parameterComponents } from "./parameters.js";
import { pascal } from "./refs.js";
import { HEADERS, failureResponses, requestBody, successResponses, type Method, type Responses } from "./responses.js";
import {
  BURST_TERMS,
  CORS_TERMS,
  CREDENTIALS,
  EVENTS_TERMS,
  FREE_TIER_TERMS,
  HEAD_TERMS,
  POLLING_TERMS,
  PRICE_RANGE,
  SERVICE_SUMMARY,
  SERVICE_TITLE,
  SERVICE_VERSION,
  isFreeTierRoute,
  priceWords,
  schemesFor,
} from "./terms.js";

type OpenApiDocument = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

/** The tag of each kind of route. */
const TAGS: Record<RouteKind, { name: string; description: string }> = {
  paid: { name: "Paid reads", description: `Sold per read, ${PRICE_RANGE}, over x402 or MPP; a license key or bearer serves them live.` },
  free: { name: "Free reads", description: "Free for everyone; one trading day delayed where they carry scores." },
  live: { name: "Live tier", description: "A live-feed license key (X-License-Key) or a bearer minted from one." },
  auth: { name: "Keys and tokens", description: "Free keys, wallet sign-in, OAuth (client credentials; authorization code with PKCE and client registration for applications a license holder signs in to) and their metadata." },
  mcp: { name: "MCP", description: "The MCP server (Streamable HTTP)." },
  discovery: { name: "Discovery", description: "Machine-readable descriptions of the service." },
  page: { name: "Pages", description: "Pages for people." },
};

/** Who may call: alternatives, any one of which opens the operation. */
function security(route: Route): Record<string, string[]>[] {
  const each = (schemes: string[]) => schemes.map((s) => ({ [s]: [] }));
  switch (route.kind) {
    case "paid":
      return each(["x402Payment", "x402PaymentV1", "mppPayment", ...schemesFor(route).filter((s) => !s.startsWith("x402") && s !== "mppPayment")]);
    case "live":
      return each(schemesFor(route));
    case "mcp":
      return route.path === MCP_LIVE_PATH ? [{ bearer: [] }] : [{}, { licenseKey: [] }];
    default:
      return route.path === "/oauth/token" ? [{}, { oauthClient: [] }] : [];
  }
}

function description(route: Route): string {
  const parts = [route.summary];
  if ("sym" in route.query.shape) {
    parts.push(
      route.kind === "paid"
        ? "A batch costs the single-name price; unknown symbols are listed in `unknown`, and when every symbol is unknown the answer is the symbol directory (200)."
        : "Without sym, every name.",
    );
  }
  if (route.kind === "paid") {
    parts.push(`Price: ${priceWords(route)} per read, the same on every rail.`);
    if (isFreeTierRoute(route)) parts.push("Also readable on a free key or wallet sign-in, within the daily free reads.");
    if (route.freeVariant) parts.push(`Free with ${route.freeVariant.param}=${route.freeVariant.value}.`);
  }
  if (route.deprecation) parts.push(deprecationWords(route.deprecation));
  return parts.join(" ");
}

/** A HEAD answer has the headers of its GET and no body. */
function withoutBodies(responses: Responses): Responses {
  return Object.fromEntries(
    Object.entries(responses).map(([status, r]) => {
      if ("$ref" in r) return [status, r];
      const { content: _content, ...rest } = r;
      return [status, rest];
    }),
  );
}

const operationId = (method: Method, path: string) => `${method}${path === "/" ? "Root" : pascal(path)}`;

function operation(route: Route, method: Method, params: string[], base: URL): RouteConfig {
  const body = method === "post" ? requestBody(route) : undefined;
  const resource = new URL(route.path, base.origin).toString();
  const responses = { ...successResponses(route, method, base), ...failureResponses(route) };
  return {
    method,
    path: route.path,
    operationId: operationId(method, route.path),
    summary: route.summary,
    description: description(route),
    tags: [TAGS[route.kind].name],
    ...(route.deprecation ? { deprecated: true } : {}),
    security: security(route),
    ...(params.length > 0 ? { parameters: params.map((p) => ({ $ref: `#/components/parameters/${p}` })) } : {}),
    ...(body ? { request: { body } } : {}),
    responses: method === "head" ? withoutBodies(responses) : responses,
    ...(route.kind === "paid" && method === "get" ? { "x-payment-info": paymentInfo(route), "x-x402": x402Info(route, resource) } : {}),
  };
}

/**
 * The OpenAPI 3.1 description of every route the gateway serves, with exactly the methods
 * the route catalogue gives it (HEAD on GET routes is stated once in info, not repeated per
 * route). Built from proto: routes, query schemas, view schemas, error codes, prices, tools.
 */
export function openApiDocument(base: URL, routes: readonly Route[] = ROUTES): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  for (const c of CREDENTIALS) {
    registry.registerComponent(
      "securitySchemes",
      c.scheme,
      c.http ? { type: "http", scheme: c.http.scheme, ...(c.http.bearerFormat ? { bearerFormat: c.http.bearerFormat } : {}), description: c.description } : { type: "apiKey", in: "header", name: c.header, description: c.description },
    );
  }
  registry.registerComponent("securitySchemes", "oauthClient", { type: "http", scheme: "basic", description: "OAuth client authentication at POST /oauth/token: the license's client id and key (client_secret_basic)." });
  // Headers and parameters are OpenAPI objects already; their schemas are plain JSON Schema, which openapi3-ts's types do not name.
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent("headers", name, header as never);
  for (const [name, schema] of Object.entries(schemaComponents(routes))) registry.registerComponent("schemas", name, schema);
  const params = parameterComponents(routes);
  for (const [name, parameter] of Object.entries(params.components)) registry.registerComponent("parameters", name, parameter as never);
  for (const route of routes) {
    for (const method of route.methods) registry.registerPath(operation(route, method.toLowerCase() as Method, params.refs.get(route) ?? [], base));
  }

  const origin = base.origin;
  const kinds = [...new Set(routes.map((r) => r.kind))];
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: SERVICE_TITLE,
      version: SERVICE_VERSION,
      description: infoDescription(),
      license: { name: "Proprietary research publication", url: `${origin}/` },
    },
    servers: [{ url: origin, description: "This service" }],
    tags: kinds.map((k) => TAGS[k]),
    externalDocs: { description: "The board described for language models", url: `${origin}/llms.txt` },
  });
  const { webhooks: _none, ...rest } = document;
  return {
    ...rest,
    // draft-payment-discovery's service metadata, as mppx's discovery reads it.
    "x-service-info": { categories: ["finance", "market-data", "research"], docs: { apiReference: `${origin}/openapi.json`, homepage: `${origin}/`, llms: `${origin}/llms.txt` } },
    "x-limits": {
      burst: {
        principal: DEFAULT_BURST.principal,
        client_address: DEFAULT_BURST.anonymous,
        client_address_ipv6_prefix: CLIENT_ADDRESS_IPV6_PREFIX,
        refused_credential_seconds: REFUSED_CREDENTIAL_SECONDS,
        mcp_tool_calls_per_message: 1,
      },
      free_tier: { reads_per_day: FREE_DAILY_LIMIT, day_starts: "00:00 UTC", routes: routes.filter(isFreeTierRoute).map((r) => r.path), idle_expiry_days: FREE_KEY_IDLE_DAYS },
    },
  } as OpenApiDocument;
}

function infoDescription(): string {
  return [
    SERVICE_SUMMARY,
    `Paid reads cost ${PRICE_RANGE} (USDC, 6 decimals; amounts on the wire are base units). Without payment a paid route answers 402 with x402 v2 offers in PAYMENT-REQUIRED, ` +
      "a v1-dialect body for older clients and an MPP challenge in WWW-Authenticate; pay with PAYMENT-SIGNATURE (x402 v2), X-PAYMENT (v1) or Authorization: Payment (MPP) " +
      "and the 200 carries the receipt. Each paid operation's `x-payment-info` (draft-payment-discovery) and `x-x402` describe its offers; the runtime 402 is authoritative. " +
      "GET /api is the whole catalogue as one 402.",
    FREE_TIER_TERMS,
    BURST_TERMS,
    POLLING_TERMS,
    EVENTS_TERMS,
    HEAD_TERMS,
    CORS_TERMS,
    "Errors share one body, {error: {code, message, status, ...}} (schema ErrorBody), with stable snake_case reason codes; each operation lists the codes it can give per status. " +
      "Standards fix three other shapes: x402's 402 bodies, RFC 6749 token errors and MPP's problem+json.",
  ].join("\n\n");
}
