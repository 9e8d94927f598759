import { z } from "zod";
import { IsoDateTime } from "../records/common.js";
import { busEndpoint } from "./endpoint.js";
import { OAuthResource } from "./oauth.js";

/** The tiers a credential can resolve to (SPEC.md 5); anonymous and x402 need no credential. */
export const CredentialTier = z.enum(["free_key", "wallet", "scanner_license", "live_license", "bearer"]);
export type CredentialTier = z.infer<typeof CredentialTier>;

/** The credential headers of SPEC.md 5, as the gateway found them (at most one is used; see resolve). */
export const Credentials = z.object({
  /** X-Board-Key: a free key or a wallet-tier key. */
  board_key: z.string().min(1).max(256).optional(),
  /** SIGN-IN-WITH-X: base64 of the signed SIWX payload. */
  siwx: z.string().min(1).max(8192).optional(),
  /** X-License-Key. */
  license_key: z.string().min(1).max(256).optional(),
  /** Authorization: Bearer <token>: the token alone. */
  bearer: z.string().min(1).max(4096).optional(),
});
export type Credentials = z.infer<typeof Credentials>;

export const LicenseKind = z.enum(["scanner", "live_feed"]);
export type LicenseKind = z.infer<typeof LicenseKind>;

/**
 * Who a credential belongs to. `id` is what metering counts against: one free key, one
 * wallet address (CAIP-10, shared by its SIWX sessions and its wallet key), one license.
 */
export const Principal = z.object({
  id: z.string().min(1).max(256),
  tier: CredentialTier,
  /** The license's kind for license and bearer principals: live_feed also opens /api/live/*. */
  license_kind: LicenseKind.nullable(),
  /** When this credential stops working on its own (SIWX session end, token expiry, paid period end); null: never by itself. */
  expires_at: IsoDateTime.nullable(),
});
export type Principal = z.infer<typeof Principal>;

/**
 * Why a credential was refused. A refusal is an answer, not a bus error: it carries a
 * message for the client (which bus errors cannot).
 * - key_unknown / key_expired (403): X-Board-Key unknown or retired / idle 90 days.
 * - license_unknown / license_lapsed (403): X-License-Key unknown / past its paid period.
 * - license_revoked (403): X-License-Key of a licence the operator revoked (a leaked key); final.
 * - token_invalid (401): the bearer fails verification (alg, signature, kid, iss, aud, exp).
 * - sign_in_invalid / sign_in_expired (402 with a fresh challenge): the SIWX header is
 *   malformed, forged, not bound to us, or carries a nonce we never issued / its session ended.
 */
export const CredentialRefusalCode = z.enum([
  "key_unknown",
  "key_expired",
  "license_unknown",
  "license_lapsed",
  "license_revoked",
  "token_invalid",
  "sign_in_invalid",
  "sign_in_expired",
]);
export type CredentialRefusalCode = z.infer<typeof CredentialRefusalCode>;

export const ResolveRequest = z.object({
  credentials: Credentials,
  /** The resource a bearer must be for (RFC 8707 audience); absent: the HTTP API. */
  resource: OAuthResource.optional(),
});
export type ResolveRequest = z.infer<typeof ResolveRequest>;
export const ResolveReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), principal: Principal }),
  z.object({ ok: z.literal(false), code: CredentialRefusalCode, message: z.string().max(500) }),
]);
export type ResolveReply = z.infer<typeof ResolveReply>;

/** POST /api/key body. */
export const FreeKeyRequest = z.object({
  email: z.string().trim().max(254, "email is at most 254 characters").pipe(z.email({ error: "email is not a valid email address" })),
});
export type FreeKeyRequest = z.infer<typeof FreeKeyRequest>;

/** The routes, limit and header of the free tiers, as a key's holder needs them. */
export const FreeTierTerms = z.object({
  daily_limit: z.number().int().min(1),
  usage: z.string(),
  header: z.string(),
  routes: z.array(z.string()),
  /** The UTC instant a day's count starts again (SPEC.md 8: 25 reads a day). */
  day_boundary: z.string(),
  expires_after_idle_days: z.number().int().min(1),
});
export type FreeTierTerms = z.infer<typeof FreeTierTerms>;

/** POST /api/key reply; the key is shown here once and stored only as a hash. */
export const FreeKeyReply = FreeTierTerms.extend({
  key: z.string(),
  tier: z.literal("free_key"),
  created_at: IsoDateTime,
  /** A key this email held before, now retired. */
  replaced_previous: z.boolean(),
});
export type FreeKeyReply = z.infer<typeof FreeKeyReply>;

/** Where a wallet signs in: CAIP-2 ids of the SIWX chains (EVM personal_sign, Solana signMessage, Algorand ed25519). */
export const SignInChain = z.string().min(3).max(80);

/**
 * The sign-in-with-x challenge: the extension `info` of a 402 (SIWX spec field names) and
 * the chains it may be signed on. With an address and chain (GET /api/auth/nonce) the exact
 * CAIP-122 message to sign comes with it.
 */
export const SignInChallengeRequest = z.object({
  /** The resource the 402 is for (its full URL); the challenge binds to our domain either way. */
  resource_url: z.url().optional(),
  address: z.string().min(1).max(128).optional(),
  chain: SignInChain.optional(),
});
export type SignInChallengeRequest = z.infer<typeof SignInChallengeRequest>;
export const SignInInfo = z.object({
  domain: z.string(),
  uri: z.string(),
  statement: z.string().optional(),
  version: z.string(),
  nonce: z.string(),
  issuedAt: IsoDateTime,
  expirationTime: IsoDateTime,
  resources: z.array(z.string()).optional(),
});
export type SignInInfo = z.infer<typeof SignInInfo>;
export const SupportedSignInChain = z.object({ chainId: z.string(), type: z.enum(["eip191", "ed25519"]) });
export type SupportedSignInChain = z.infer<typeof SupportedSignInChain>;
/** Refused with bus errors unknown_chain or invalid_address (400) when the chain or address is not one we sign in. */
export const SignInChallengeReply = z.object({
  info: SignInInfo,
  supportedChains: z.array(SupportedSignInChain),
  /** Present when address and chain were given: the exact text to sign. */
  message: z.string().optional(),
  address: z.string().optional(),
  chainId: z.string().optional(),
  type: z.enum(["eip191", "ed25519"]).optional(),
});
export type SignInChallengeReply = z.infer<typeof SignInChallengeReply>;

/**
 * POST /api/auth/verify body: the signed SIWX payload, the same JSON object the
 * SIGN-IN-WITH-X header carries in base64 (the challenge's fields, plus address, chainId,
 * type and signature: 0x hex for EVM, base58 for Solana, base64 for Algorand).
 */
export const SignInPayload = z.object({
  domain: z.string().max(256),
  address: z.string().max(128),
  statement: z.string().max(1024).optional(),
  uri: z.string().max(2048),
  version: z.string().max(8),
  chainId: z.string().max(80),
  type: z.enum(["eip191", "ed25519"]),
  nonce: z.string().max(128),
  issuedAt: z.string().max(64),
  expirationTime: z.string().max(64).optional(),
  notBefore: z.string().max(64).optional(),
  requestId: z.string().max(256).optional(),
  resources: z.array(z.string().max(2048)).max(20).optional(),
  signatureScheme: z.enum(["eip191", "eip1271", "eip6492", "siws"]).optional(),
  signature: z.string().max(4096),
});
export type SignInPayload = z.infer<typeof SignInPayload>;

export const SignInVerifyRequest = z.object({ payload: SignInPayload });
export type SignInVerifyRequest = z.infer<typeof SignInVerifyRequest>;
/** A wallet-tier key for X-Board-Key: the address's 25 reads a day, shared with its SIWX sessions. */
export const SignInVerifyReply = z.discriminatedUnion("ok", [
  FreeTierTerms.extend({
    ok: z.literal(true),
    key: z.string(),
    tier: z.literal("wallet"),
    address: z.string(),
    chainId: z.string(),
    created_at: IsoDateTime,
    replaced_previous: z.boolean(),
  }),
  z.object({ ok: z.literal(false), code: z.enum(["sign_in_invalid", "sign_in_expired"]), message: z.string().max(500) }),
]);
export type SignInVerifyReply = z.infer<typeof SignInVerifyReply>;

/** RFC 6749 5.2 error codes of the token endpoint, and RFC 8707's invalid_target (a resource we do not serve). */
export const OAuthErrorCode = z.enum([
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope",
  "invalid_target",
]);
export type OAuthErrorCode = z.infer<typeof OAuthErrorCode>;

/** POST /oauth/token, as the gateway read it from the form body and the Authorization header. */
export const TokenRequest = z.object({
  grant_type: z.string().max(200).optional(),
  scope: z.string().max(500).optional(),
  /** authorization_code: the code, the redirect URI it was asked for, and the PKCE verifier. */
  code: z.string().max(256).optional(),
  redirect_uri: z.string().max(2048).optional(),
  code_verifier: z.string().max(256).optional(),
  /** refresh_token grant. */
  refresh_token: z.string().max(256).optional(),
  /** RFC 8707 resource indicators (the one parameter that may repeat). */
  resource: z.array(z.string().max(2048)).max(5).optional(),
  /** client_secret_post: both in the form body. */
  form_client_id: z.string().max(256).optional(),
  form_client_secret: z.string().max(256).optional(),
  /** client_secret_basic: both from Authorization: Basic (already form-decoded per RFC 6749 2.3.1). */
  basic_client_id: z.string().max(256).optional(),
  basic_client_secret: z.string().max(256).optional(),
  /** The request's body was not application/x-www-form-urlencoded or repeated a parameter. */
  malformed: z.string().max(200).optional(),
});
export type TokenRequest = z.infer<typeof TokenRequest>;
export const AccessToken = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.literal(3600),
  scope: z.literal("board:live"),
  /** Authorization code and refresh grants: the next refresh token (each is good once; see docs/decisions.md). */
  refresh_token: z.string().optional(),
});
export type AccessToken = z.infer<typeof AccessToken>;
export const TokenReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), token: AccessToken }),
  z.object({
    ok: z.literal(false),
    /** 400, or 401 for invalid_client (with WWW-Authenticate: Basic when the client used Basic). */
    status: z.union([z.literal(400), z.literal(401)]),
    error: OAuthErrorCode,
    error_description: z.string().max(300),
    /** The client authenticated with Authorization: Basic: answer with WWW-Authenticate (RFC 6749 5.2). */
    basic: z.boolean(),
  }),
]);
export type TokenReply = z.infer<typeof TokenReply>;

/** GET /oauth/jwks: public keys only (RFC 7517 set). */
export const Jwk = z.object({ kty: z.literal("EC"), crv: z.literal("P-256"), x: z.string(), y: z.string(), kid: z.string(), alg: z.literal("ES256"), use: z.literal("sig") });
export type Jwk = z.infer<typeof Jwk>;
export const JwksReply = z.object({ keys: z.array(Jwk) });
export type JwksReply = z.infer<typeof JwksReply>;

/** A license as the operator sees it: never its key, which is shown once at issue. */
export const LicenseRecord = z.object({
  license_id: z.uuid(),
  kind: LicenseKind,
  client_id: z.string(),
  holder: z.string(),
  period: z.enum(["monthly", "yearly"]),
  issued_at: IsoDateTime,
  period_end: IsoDateTime,
  cancelled_at: IsoDateTime.nullable(),
  /** When the operator revoked it, and why (free text for the operator); null: not revoked. */
  revoked_at: IsoDateTime.nullable(),
  revoked_reason: z.string().nullable(),
  /** active: verifies; cancelled: verifies until period_end; lapsed: no longer verifies; revoked: stopped by the operator, for good. */
  state: z.enum(["active", "cancelled", "lapsed", "revoked"]),
});
export type LicenseRecord = z.infer<typeof LicenseRecord>;

export const LicenseIssueRequest = z.object({
  kind: LicenseKind,
  period: z.enum(["monthly", "yearly"]),
  /** Who bought it (free text for the operator, e.g. an order reference); never an email. */
  holder: z.string().min(1).max(200),
});
export type LicenseIssueRequest = z.infer<typeof LicenseIssueRequest>;
export const LicenseIssueReply = z.object({ license: LicenseRecord, key: z.string() });
export type LicenseIssueReply = z.infer<typeof LicenseIssueReply>;
export const LicenseListReply = z.object({ licenses: z.array(LicenseRecord) });
export type LicenseListReply = z.infer<typeof LicenseListReply>;
export const LicenseRef = z.object({ license_id: z.uuid() });
export type LicenseRef = z.infer<typeof LicenseRef>;
/**
 * Revoke: a leaked licence stops at once, not at period_end: its key, its bearers and its
 * refresh tokens are refused from then on, everywhere within LICENSE_REVOCATION_BOUND_SECONDS.
 * Revoking again keeps the first time and reason. Nothing undoes it: issue a new licence.
 */
export const LicenseRevokeRequest = LicenseRef.extend({ reason: z.string().trim().min(1).max(500) });
export type LicenseRevokeRequest = z.infer<typeof LicenseRevokeRequest>;
/** Cancel: the license keeps verifying until its period_end. Renew: one more period, unless cancelled or revoked. */
export const LicenseReply = z.object({ license: LicenseRecord });
export type LicenseReply = z.infer<typeof LicenseReply>;

export const identityResolve = busEndpoint("identity", "resolve", ResolveRequest, ResolveReply);
export const identityFreeKey = busEndpoint("identity", "free_key", FreeKeyRequest, FreeKeyReply);
export const identitySignInChallenge = busEndpoint("identity", "sign_in_challenge", SignInChallengeRequest, SignInChallengeReply);
export const identitySignInVerify = busEndpoint("identity", "sign_in_verify", SignInVerifyRequest, SignInVerifyReply);
export const identityToken = busEndpoint("identity", "token", TokenRequest, TokenReply);
export const identityJwks = busEndpoint("identity", "jwks", z.object({}), JwksReply);
export const identityLicenseIssue = busEndpoint("identity", "license_issue", LicenseIssueRequest, LicenseIssueReply);
export const identityLicenseList = busEndpoint("identity", "license_list", z.object({}), LicenseListReply);
export const identityLicenseCancel = busEndpoint("identity", "license_cancel", LicenseRef, LicenseReply);
export const identityLicenseRenew = busEndpoint("identity", "license_renew", LicenseRef, LicenseReply);
export const identityLicenseRevoke = busEndpoint("identity", "license_revoke", LicenseRevokeRequest, LicenseReply);

/**
 * Published (core NATS, every subscriber gets it) by the identity replica that revoked a
 * licence, after the revocation is stored: every identity and gateway replica drops what it
 * keeps of that licence. At most once: the caches' own lifetimes bound a missed one.
 */
export const LICENSE_REVOKED_SUBJECT = "identity.events.v1.license_revoked";
export const LicenseRevokedEvent = z.object({ license_id: z.uuid(), revoked_at: IsoDateTime });
export type LicenseRevokedEvent = z.infer<typeof LicenseRevokedEvent>;

/**
 * A free or wallet-tier key was retired (a newer key was issued to its owner): the gateways drop
 * what they keep of the owner's principal, so the old key is refused at once. Core NATS, at most
 * once, published before the new key is answered: a replica that misses it stops the old key
 * when its entry ends (RESOLVED_PRINCIPAL_CACHE_SECONDS).
 */
export const KEY_RETIRED_SUBJECT = "identity.events.v1.key_retired";
export const KeyRetiredEvent = z.object({ principal_id: z.string().min(1).max(256) });
export type KeyRetiredEvent = z.infer<typeof KeyRetiredEvent>;

/**
 * How long a verified licence may be answered from memory: identity's verified licences
 * (key hash or id to row) and the gateway's resolved principals (key or bearer to principal).
 * They stack (a gateway entry may come from an identity entry just as old), so a revocation
 * whose announcement a replica missed still stops everywhere within their sum.
 */
export const VERIFIED_LICENSE_CACHE_SECONDS = 5;
export const RESOLVED_PRINCIPAL_CACHE_SECONDS = 10;
export const LICENSE_REVOCATION_BOUND_SECONDS = VERIFIED_LICENSE_CACHE_SECONDS + RESOLVED_PRINCIPAL_CACHE_SECONDS;

/** The free tiers' terms (SPEC.md 5 and 8). */
export const FREE_DAILY_LIMIT = 25;
export const FREE_KEY_IDLE_DAYS = 90;
export const SIGN_IN_SESSION_SECONDS = 600;
export const ACCESS_TOKEN_SECONDS = 3600;
export const ACCESS_TOKEN_SCOPE = "board:live";
