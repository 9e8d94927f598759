import { ACCESS_TOKEN_SCOPE, type OAuthErrorCode, type TokenReply, type TokenRequest } from "@board/proto";

export type TokenRefusal = Extract<TokenReply, { ok: false }>;

/** The client's credentials as presented, and whether they came in Authorization: Basic. */
export interface PresentedClient {
  clientId: string;
  clientSecret: string;
  basic: boolean;
}

const BOTH_REQUIRED = "client_id and client_secret are both required";

/**
 * Checks a token request up to client authentication (RFC 6749 4.4.2, 2.3.1, 5.2):
 * the body, the grant type and exactly one authentication method carrying both parts.
 * Descriptions are fixed sentences: nothing the client sent is echoed.
 */
export function readTokenRequest(req: TokenRequest): { ok: true; client: PresentedClient } | TokenRefusal {
  if (req.malformed !== undefined) return refuse("invalid_request", req.malformed);
  if (req.grant_type === undefined || req.grant_type === "") return refuse("invalid_request", "grant_type is required");
  if (req.grant_type !== "client_credentials") return refuse("unsupported_grant_type", "the only grant type is client_credentials");

  // The client is read as every grant reads it; this grant then needs the secret too.
  const bare = req.basic_client_id === undefined && req.basic_client_secret === undefined;
  if (bare && req.form_client_id === undefined && req.form_client_secret === undefined) {
    return refuseClient("client authentication is required: HTTP Basic, or client_id and client_secret in the body", false);
  }
  const read = readGrantClient(req);
  if (!read.ok && read.error !== "invalid_client") return read;
  if (!read.ok) return refuseClient(BOTH_REQUIRED, read.basic);
  const { clientId, secret, basic } = read.client;
  if (secret === undefined) return refuseClient(BOTH_REQUIRED, basic);
  return { ok: true, client: { clientId, clientSecret: secret, basic } };
}

/** RFC 6749 3.3: absent means the default; board:live is the one scope there is. */
export function scopeRefusal(scope: string | undefined): TokenRefusal | null {
  if (scope === undefined || scope === ACCESS_TOKEN_SCOPE) return null;
  return refuse("invalid_scope", `the only scope is ${ACCESS_TOKEN_SCOPE}`);
}

/** Unknown client or wrong secret: one answer for both, so neither can be told apart. */
export function authenticationFailed(basic: boolean): TokenRefusal {
  return refuseClient("client authentication failed", basic);
}

/**
 * The client of any grant: a public client names itself with client_id in the
 * body; a confidential one adds its secret, in the body or in Authorization: Basic.
 */
export function readGrantClient(req: TokenRequest): { ok: true; client: { clientId: string; secret: string | undefined; basic: boolean } } | TokenRefusal {
  const basic = req.basic_client_id !== undefined || req.basic_client_secret !== undefined;
  if (basic) {
    // A client_id repeated in the body beside Basic is one method; a secret in the body is a second one.
    if (req.form_client_secret !== undefined) {
      return refuse("invalid_request", "use one client authentication method: HTTP Basic or client_id and client_secret in the body, not both");
    }
    if (req.form_client_id !== undefined && req.form_client_id !== req.basic_client_id) {
      return refuse("invalid_request", "client_id in the body differs from the one in Authorization: Basic");
    }
    if (!req.basic_client_id) return refuseClient("client_id is required", true);
    return { ok: true, client: { clientId: req.basic_client_id, secret: req.basic_client_secret || undefined, basic: true } };
  }
  if (!req.form_client_id) return refuseClient("client authentication is required: client_id in the body (and client_secret, or HTTP Basic, for a confidential client)", false);
  return { ok: true, client: { clientId: req.form_client_id, secret: req.form_client_secret || undefined, basic: false } };
}

export function refuse(error: Exclude<OAuthErrorCode, "invalid_client">, description: string): TokenRefusal {
  return { ok: false, status: 400, error, error_description: description, basic: false };
}

/** 401; `basic` tells the gateway to add WWW-Authenticate: Basic, as RFC 6749 5.2 requires. */
export function refuseClient(description: string, basic: boolean): TokenRefusal {
  return { ok: false, status: 401, error: "invalid_client", error_description: description, basic };
}
