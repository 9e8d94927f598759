import { ErrorCode, OAuthErrorCode, Rail, RegistrationErrorCode, Tier } from "@board/proto";
import { z } from "zod";

/**
 * Bodies whose shape a standard fixes (x402, RFC 9457 for MPP, RFC 6749, JSON-RPC), as the
 * gateway passes them on, declared here so /openapi.json can describe them. Objects are
 * open: the standards let their producers add members. The integration test checks real
 * 402s from the payments service against these.
 */

const Amount = z.string().regex(/^\d+$/).describe("USDC base units (6 decimals).");

/** One offer of an x402 v2 PaymentRequired. */
export const X402Requirements = z.looseObject({
  scheme: z.string(),
  network: z.string().describe("CAIP-2 network id."),
  amount: Amount,
  asset: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number().int(),
  extra: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** One offer in x402 v1's words (the 402 body's `accepts`, which x402-fetch 1.x reads). */
export const X402RequirementsV1 = z.looseObject({
  scheme: z.string(),
  network: z.string().describe("v1 network name: base or solana."),
  maxAmountRequired: Amount,
  resource: z.string(),
  description: z.string(),
  mimeType: z.string().optional(),
  outputSchema: z.record(z.string(), z.unknown()).nullable().optional(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number().int(),
  asset: z.string(),
  extra: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** The x402 v2 PaymentRequired: base64 JSON in the PAYMENT-REQUIRED header, and under `v2` in the body. */
export const X402PaymentRequired = z.looseObject({
  x402Version: z.literal(2),
  error: z.string().nullable().optional(),
  resource: z.looseObject({ url: z.string(), description: z.string().nullable().optional(), mimeType: z.string().nullable().optional() }),
  accepts: z.array(X402Requirements),
  extensions: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe(
      "x402 extensions: payment-identifier (an idempotency id a retry may carry), bazaar (how to call the route or MCP tool and what it answers), offer-receipt (each accepts entry signed, JWS ES256, key at /.well-known/did.json), and sign-in-with-x (the CAIP-122 challenge a free-tier wallet signs; not on MCP).",
    ),
});

/** Reason codes a paid route's 402 body can carry in `error`. */
export const PaymentRefusalCode = z.enum(ErrorCode.options.filter((c) => c === "payment_required" || c.startsWith("payment_") || c === "route_not_in_tier" || c.startsWith("sign_in_")));

/** A paid route's 402 body: x402's v1 dialect for older clients, our reason code and advice, and the whole v2 PaymentRequired. */
export const PaymentRequiredBody = z.looseObject({
  x402Version: z.literal(1),
  error: PaymentRefusalCode,
  message: z.string(),
  resource: z.string(),
  accepts: z.array(X402RequirementsV1).describe("Only the offers v1 clients can pay (Base as base, Solana as solana)."),
  v2: X402PaymentRequired,
});

/** A refused MPP credential: RFC 9457 problem details (mppx's errors) with our reason code; a fresh challenge rides in WWW-Authenticate. */
export const MppProblem = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: PaymentRefusalCode,
});

/** GET /api: every paid route with its price, tiers and every offer. */
export const OfferCatalogue = z.looseObject({
  x402Version: z.literal(2),
  error: z.literal("payment_required"),
  message: z.string(),
  routes: z.array(
    z.looseObject({
      path: z.string(),
      resource: z.string(),
      summary: z.string(),
      price: z.object({ amount: Amount, asset: z.literal("USDC"), decimals: z.literal(6) }),
      tiers: z.array(Tier),
      accepts: z.array(X402Requirements.extend({ rail: Rail })),
      accepts_v1: z.array(X402RequirementsV1),
      mpp: z
        .looseObject({ method: z.literal("usdc"), intent: z.literal("charge"), network: z.string(), amount: Amount, challenge: z.string() })
        .nullable(),
    }),
  ),
});

/**
 * POST /oauth/token's form: client credentials (RFC 6749 4.4), the authorization code (4.1.3,
 * with RFC 7636's verifier) or a refresh token (6). A client may authenticate with
 * Authorization: Basic instead of the client fields.
 */
export const TokenForm = z.object({
  grant_type: z.enum(["client_credentials", "authorization_code", "refresh_token"]),
  client_id: z.string().max(256).optional().describe("The license's client id (client credentials) or the registered client's id (or use Authorization: Basic)."),
  client_secret: z.string().max(256).optional().describe("The license key (client credentials), or a confidential registered client's secret (or use Authorization: Basic)."),
  scope: z.string().max(500).optional().describe("board:live, the only scope."),
  code: z.string().max(256).optional().describe("authorization_code: the code from the redirect (single use, one minute)."),
  redirect_uri: z.string().max(2048).optional().describe("authorization_code: the redirect URI the authorization request named."),
  code_verifier: z.string().max(256).optional().describe("authorization_code: the PKCE verifier whose S256 is the code_challenge."),
  refresh_token: z.string().max(256).optional().describe("refresh_token: the latest refresh token (each is good once; a used one presented again revokes the sign-in)."),
  resource: z.string().max(2048).optional().describe("RFC 8707 resource indicator (may repeat): one of the resources authorized; the token's audience."),
});

/** RFC 6749 5.2 (with RFC 8707's invalid_target). */
export const OAuthError = z.looseObject({ error: OAuthErrorCode, error_description: z.string() });

/** POST /oauth/authorize: the consent page's form. */
export const ConsentForm = z.object({
  request: z.string().max(8192).describe("The consent page's hidden field: the authorization request as checked, sealed by the server."),
  decision: z.enum(["approve", "deny"]),
  license_key: z.string().max(256).optional().describe("The license key, typed by its holder (approve). Never put it in a URL."),
});

/** POST /oauth/register's body (RFC 7591 2): what is read; other members are accepted and not kept. */
export const ClientRegistration = z.looseObject({
  redirect_uris: z.array(z.string().max(2048)).min(1).max(10).describe("https, or http on 127.0.0.1, [::1] or localhost (any port at authorization)."),
  token_endpoint_auth_method: z.enum(["none", "client_secret_basic", "client_secret_post"]).optional().describe("Default client_secret_basic (a secret is issued); none for a public client."),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).optional().describe("Default [authorization_code]; add refresh_token to get refresh tokens."),
  response_types: z.array(z.literal("code")).optional(),
  client_name: z.string().max(100).optional().describe("Shown on the consent page as the client's own claim."),
  client_uri: z.url().optional(),
  scope: z.string().max(500).optional(),
});

/** RFC 7591 3.2.2. */
export const RegistrationError = z.looseObject({ error: RegistrationErrorCode, error_description: z.string() });

const JsonRpcId = z.union([z.string(), z.number().int()]);

/** A JSON-RPC 2.0 message to the MCP server (initialize, tools/list, tools/call, notifications). */
export const JsonRpcRequest = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: JsonRpcId.optional().describe("Absent on notifications, which are answered 202 with no body."),
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** The MCP server's JSON-RPC answer: a result, or an error (transport errors carry id null). */
export const JsonRpcResponse = z.union([
  z.looseObject({ jsonrpc: z.literal("2.0"), id: JsonRpcId, result: z.record(z.string(), z.unknown()) }),
  z.looseObject({
    jsonrpc: z.literal("2.0"),
    id: JsonRpcId.nullable(),
    error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  }),
]);
