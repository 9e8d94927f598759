import {
  AccessToken,
  BoardPublishedEvent,
  ErrorBody,
  FreeKeyReply,
  FreeKeyRequest,
  JwksReply,
  DidDocument,
  ReceiptReply,
  RegisteredClient,
  SignInChallengeReply,
  SignInPayload,
  SignInVerifyReply,
  TierBlock,
  VIEW_SCHEMAS,
  type Route,
  type ViewName,
} from "@board/proto";
import { z } from "zod";
import { Linkset } from "./api-catalog.js";
import { pascal } from "./refs.js";
import { componentSchemas, protoName, type JsonSchema } from "./schemas.js";
import { ServerCard } from "./server-card.js";
import { isFreeTierRoute } from "./terms.js";
import {
  ClientRegistration,
  ConsentForm,
  JsonRpcRequest,
  JsonRpcResponse,
  MppProblem,
  OAuthError,
  OfferCatalogue,
  PaymentRequiredBody,
  RegistrationError,
  TokenForm,
  X402PaymentRequired,
} from "./wire-schemas.js";

/** A read counted against a free tier carries the tier block: the body is the view plus `tier`. */
function withTierBlock(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) return schema.extend({ tier: TierBlock.optional() });
  if (schema instanceof z.ZodUnion) return z.union((schema.options as z.ZodType[]).map(withTierBlock) as [z.ZodType, z.ZodType]);
  return schema;
}

/**
 * The body of a board read, from the views the route serves (its view and its free
 * variant's). A route whose view is not built yet has none; when it gets one, the document
 * describes it with no change here.
 */
export function readBody(route: Route): { name: string; schema: z.ZodType } | null {
  if (route.view === null) return null;
  const views: ViewName[] = [route.view, ...(route.freeVariant ? [route.freeVariant.view] : [])];
  const schemas = [...new Set(views.map((v) => VIEW_SCHEMAS[v]))];
  const base = schemas.length === 1 ? schemas[0]! : z.union(schemas as [z.ZodType, z.ZodType]);
  // Named after proto's schema when the body is one; otherwise after the view (proto has no *Response names).
  if (isFreeTierRoute(route)) return { name: `${pascal(route.view)}Response`, schema: withTierBlock(base) };
  return { name: protoName(base) ?? `${pascal(route.view)}Response`, schema: base };
}

/** The wallet key POST /api/auth/verify answers with: the accepted branch of identity's reply, without its `ok`. */
const WalletKeyReply = (() => {
  const [accepted] = SignInVerifyReply.options;
  if (accepted.shape.ok.value !== true) throw new Error("SignInVerifyReply's first branch is not the accepted one");
  return accepted.omit({ ok: true });
})();

/** Every schema the document names: what the service sends (output) and what it accepts (input). */
export function schemaComponents(routes: readonly Route[]): Record<string, JsonSchema> {
  const out = new Map<string, z.ZodType>();
  for (const route of routes) {
    const body = readBody(route);
    if (body) out.set(body.name, body.schema);
  }
  const sent: [string, z.ZodType][] = [
    ["ErrorBody", ErrorBody],
    ["BoardPublishedEvent", BoardPublishedEvent],
    ["PaymentRequiredBody", PaymentRequiredBody],
    ["X402PaymentRequired", X402PaymentRequired],
    ["MppProblem", MppProblem],
    ["OfferCatalogue", OfferCatalogue],
    ["FreeKeyReply", FreeKeyReply],
    ["SignInChallengeReply", SignInChallengeReply],
    ["WalletKeyReply", WalletKeyReply],
    ["AccessToken", AccessToken],
    ["OAuthError", OAuthError],
    ["RegisteredClient", RegisteredClient],
    ["RegistrationError", RegistrationError],
    ["JwksReply", JwksReply],
    ["DidDocument", DidDocument],
    ["PaidReadReceipt", ReceiptReply.omit({ headers: true })],
    ["JsonRpcResponse", JsonRpcResponse],
    ["Linkset", Linkset],
    ["ServerCard", ServerCard],
  ];
  for (const [name, schema] of sent) out.set(name, schema);
  const accepted = new Map<string, z.ZodType>([
    ["FreeKeyRequest", FreeKeyRequest],
    ["SignInPayload", SignInPayload],
    ["TokenForm", TokenForm],
    ["ConsentForm", ConsentForm],
    ["ClientRegistration", ClientRegistration],
    ["JsonRpcRequest", JsonRpcRequest],
  ]);
  const output = componentSchemas(out, "output");
  const input = componentSchemas(accepted, "input");
  for (const [name, schema] of Object.entries(input)) {
    if (name in output && JSON.stringify(output[name]) !== JSON.stringify(schema)) throw new Error(`schema ${name} differs between requests and responses`);
  }
  return { ...output, ...input };
}
