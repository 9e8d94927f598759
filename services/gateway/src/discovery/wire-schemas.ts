import { ErrorCode, OAuthErrorCode, Rail, Tier } from "@board/proto";
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

/** POST /oauth/token's form (RFC 6749 4.4); the client may authenticate with Authorization: Basic instead of the two client fields. */
export const TokenForm = z.object({
  grant_type: z.literal("client_credentials"),
  client_id: z.string().max(256).optional().describe("The license's client id (or use Authorization: Basic)."),
  client_secret: z.string().max(256).optional().describe("The license key (or use Authorization: Basic)."),
  scope: z.string().max(500).optional().describe("board:live, the only scope."),
});

/** RFC 6749 5.2. */
export const OAuthError = z.looseObject({ error: OAuthErrorCode, error_description: z.string() });

/** GET /oauth/authorize: no interactive grant exists. */
export const AuthorizeRefusal = z.looseObject({ error: z.literal("unsupported_response_type"), error_description: z.string() });

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
