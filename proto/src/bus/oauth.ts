import { z } from "zod";
import { IsoDateTime } from "../records/common.js";
import { busEndpoint } from "./endpoint.js";

/**
 * The resources a token can be asked for (RFC 8707), each a URL under the issuer: the HTTP
 * API (the paid and live routes, the issuer itself) and the live tier's MCP endpoint. A
 * token's audience is the resources it was asked for, so one for /mcp/live alone does not
 * open the HTTP routes.
 */
export const OAuthResource = z.enum(["api", "mcp_live"]);
export type OAuthResource = z.infer<typeof OAuthResource>;

/** The live tier's MCP endpoint: licensed by sign-in (authorization code with PKCE). */
export const MCP_LIVE_PATH = "/mcp/live";

/** Each resource's path under the issuer (the API is the issuer itself). */
export const OAUTH_RESOURCE_PATHS: Readonly<Record<OAuthResource, string>> = { api: "", mcp_live: MCP_LIVE_PATH };

/** A resource's identifier: the issuer (no trailing slash) and the resource's path. */
export const oauthResourceUrl = (issuer: string, resource: OAuthResource): string => `${issuer.replace(/\/+$/, "")}${OAUTH_RESOURCE_PATHS[resource]}`;

/** How long a consent form stays good, and an authorization code after it (both single requests of one sign-in). */
export const CONSENT_SECONDS = 600;
export const AUTHORIZATION_CODE_SECONDS = 60;

/** RFC 6749 4.1.2.1 error codes of the authorization endpoint, with RFC 8707's invalid_target. */
export const AuthorizeErrorCode = z.enum([
  "invalid_request",
  "unauthorized_client",
  "access_denied",
  "unsupported_response_type",
  "invalid_scope",
  "server_error",
  "invalid_target",
]);
export type AuthorizeErrorCode = z.infer<typeof AuthorizeErrorCode>;

/** GET /oauth/authorize's parameters, as the gateway read them from the query. */
export const AuthorizeRequest = z.object({
  response_type: z.string().max(100).optional(),
  client_id: z.string().max(256).optional(),
  redirect_uri: z.string().max(2048).optional(),
  scope: z.string().max(500).optional(),
  state: z.string().max(1024).optional(),
  code_challenge: z.string().max(256).optional(),
  code_challenge_method: z.string().max(64).optional(),
  /** RFC 8707: may repeat. */
  resource: z.array(z.string().max(2048)).max(5).optional(),
  /** A parameter repeated (RFC 6749 3.1) or too long: the request cannot be trusted. */
  malformed: z.string().max(200).optional(),
});
export type AuthorizeRequest = z.infer<typeof AuthorizeRequest>;

/** What the consent page shows and posts back. */
export const ConsentPrompt = z.object({
  /** Opaque and MAC'd by identity: binds the form to this authorization request until expires_at. */
  request: z.string().max(8192),
  client_id: z.string(),
  /** As the client registered it: the page says it is the client's own claim. */
  client_name: z.string().nullable(),
  /** Where the code goes: the redirect URI's origin, shown beside the name and allowed as the form's redirect target. */
  redirect_origin: z.string(),
  resources: z.array(OAuthResource).min(1),
  scope: z.string(),
  expires_at: IsoDateTime,
});
export type ConsentPrompt = z.infer<typeof ConsentPrompt>;

export const AuthorizeReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), prompt: ConsentPrompt }),
  z.object({
    ok: z.literal(false),
    error: AuthorizeErrorCode,
    error_description: z.string().max(300),
    /**
     * Where the client hears the error (its redirect URI with error, state and iss); null when
     * the client or its redirect URI cannot be trusted: the person is told instead (RFC 6749 4.1.2.1).
     */
    redirect: z.string().nullable(),
  }),
]);
export type AuthorizeReply = z.infer<typeof AuthorizeReply>;

/** POST /oauth/authorize: the consent form, with the licence key typed by its holder (never in a URL). */
export const ConsentRequest = z.object({
  request: z.string().max(8192),
  decision: z.enum(["approve", "deny"]),
  license_key: z.string().max(256).optional(),
});
export type ConsentRequest = z.infer<typeof ConsentRequest>;

/**
 * Why a consent was not given:
 * - license_unknown / license_lapsed / license_revoked / license_not_live: the key does not prove a licence for
 *   what was asked (the form is shown again, the key not echoed);
 * - request_invalid / request_expired: the form is not one we issued, or is too old: start
 *   again from the application.
 */
export const ConsentRefusalCode = z.enum(["license_unknown", "license_lapsed", "license_revoked", "license_not_live", "request_invalid", "request_expired"]);
export type ConsentRefusalCode = z.infer<typeof ConsentRefusalCode>;

export const ConsentReply = z.discriminatedUnion("ok", [
  /** The client's redirect URI with the code (or access_denied), state and iss. */
  z.object({ ok: z.literal(true), redirect: z.string() }),
  z.object({ ok: z.literal(false), code: ConsentRefusalCode, message: z.string().max(500), prompt: ConsentPrompt.nullable() }),
]);
export type ConsentReply = z.infer<typeof ConsentReply>;

/** RFC 7591 3.2.2 error codes. */
export const RegistrationErrorCode = z.enum(["invalid_redirect_uri", "invalid_client_metadata"]);
export type RegistrationErrorCode = z.infer<typeof RegistrationErrorCode>;

/** POST /oauth/register: the client's metadata as sent (identity checks it). */
export const RegisterRequest = z.object({ metadata: z.record(z.string(), z.unknown()) });
export type RegisterRequest = z.infer<typeof RegisterRequest>;

/** RFC 7591 3.2.1: the client's id (and secret, for a confidential client, shown once) and its metadata as registered. */
export const RegisteredClient = z.object({
  client_id: z.string(),
  client_id_issued_at: z.number().int(),
  client_secret: z.string().optional(),
  /** 0: the secret does not expire. */
  client_secret_expires_at: z.number().int().optional(),
  redirect_uris: z.array(z.string()).min(1),
  token_endpoint_auth_method: z.enum(["none", "client_secret_basic", "client_secret_post"]),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"])),
  response_types: z.array(z.literal("code")),
  scope: z.string(),
  client_name: z.string().optional(),
  client_uri: z.string().optional(),
});
export type RegisteredClient = z.infer<typeof RegisteredClient>;

export const RegisterReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), client: RegisteredClient }),
  z.object({ ok: z.literal(false), error: RegistrationErrorCode, error_description: z.string().max(300) }),
]);
export type RegisterReply = z.infer<typeof RegisterReply>;

export const identityAuthorize = busEndpoint("identity", "authorize", AuthorizeRequest, AuthorizeReply);
export const identityConsent = busEndpoint("identity", "consent", ConsentRequest, ConsentReply);
export const identityRegister = busEndpoint("identity", "register", RegisterRequest, RegisterReply);
