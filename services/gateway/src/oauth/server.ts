import { ACCESS_TOKEN_SCOPE, identityJwks, identityToken, MCP_LIVE_PATH, oauthResourceUrl, TokenRequest, type OAuthResource } from "@board/proto";
import { request } from "@board/service-kit";
import type { Request, Response } from "express";
import { readForm } from "../http/bodies.js";
import { sendUpstreamError } from "../http/errors.js";
import { CREDENTIAL_HEADERS, requestHeader } from "../http/headers.js";
import { withinAnonymousBurst, type ReadDeps } from "../reads/read.js";

/** RFC 6749 5.1/5.2: token responses are never cached. */
export function noStore(res: Response): Response {
  return res.setHeader("Cache-Control", "no-store").setHeader("Pragma", "no-cache");
}

export function oauthError(res: Response, status: number, error: string, description: string): void {
  noStore(res).status(status).type("application/json").send(JSON.stringify({ error, error_description: description }));
}

/** Authorization: Basic, decoded as RFC 6749 2.3.1 says (each part form-urlencoded before base64). */
function basicCredentials(req: Request): { id: string; secret: string } | "malformed" | null {
  const auth = requestHeader(req.headers, CREDENTIAL_HEADERS.authorization);
  if (!auth || !/^Basic\s/i.test(auth)) return null;
  const decoded = Buffer.from(auth.replace(/^Basic\s+/i, "").trim(), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return "malformed";
  try {
    const form = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { id: form(decoded.slice(0, colon)), secret: form(decoded.slice(colon + 1)) };
  } catch {
    return "malformed";
  }
}

/** The form fields the token endpoint passes on as they are. */
const PLAIN_FIELDS = ["grant_type", "scope", "code", "redirect_uri", "code_verifier", "refresh_token"] as const;

/**
 * POST /oauth/token: client credentials (the client secret is the license key), and the
 * authorization code and refresh grants of registered clients. Identity decides; codes,
 * verifiers and tokens pass through and are never logged.
 */
export async function postToken(deps: ReadDeps, req: Request, res: Response): Promise<void> {
  // Every grant has identity check a secret, a code or a refresh token (a database lookup):
  // the client address's burst comes first, failing closed like every keyed request.
  if (!(await withinAnonymousBurst(deps, req, res, "closed"))) return;
  const basic = basicCredentials(req);
  if (basic === "malformed") {
    res.setHeader("WWW-Authenticate", 'Basic realm="board", charset="UTF-8"');
    return oauthError(res, 401, "invalid_client", "The Authorization: Basic credentials are malformed.");
  }
  const form = await readForm(req, { repeatable: ["resource"] });
  const tokenRequest: TokenRequest = form.ok
    ? {
        ...Object.fromEntries(PLAIN_FIELDS.flatMap((f) => (form.value.one[f] !== undefined ? [[f, form.value.one[f]]] : []))),
        ...(form.value.one.client_id !== undefined ? { form_client_id: form.value.one.client_id } : {}),
        ...(form.value.one.client_secret !== undefined ? { form_client_secret: form.value.one.client_secret } : {}),
        ...(form.value.many.resource ? { resource: form.value.many.resource } : {}),
      }
    : { malformed: form.message };
  if (basic) Object.assign(tokenRequest, { basic_client_id: basic.id, basic_client_secret: basic.secret });
  // An over-long field fails the bus contract before identity sees it: that is a malformed request.
  if (!TokenRequest.safeParse(tokenRequest).success) return oauthError(res, 400, "invalid_request", "A parameter of the token request is too long.");
  let reply;
  try {
    reply = await request(deps.nc, identityToken, tokenRequest, { timeoutMs: deps.timeoutMs });
  } catch (err) {
    return sendUpstreamError(res, err);
  }
  if (!reply.ok) {
    // RFC 9110: every 401 names its scheme; client authentication here is Basic (or the form fields).
    if (reply.status === 401) res.setHeader("WWW-Authenticate", 'Basic realm="board", charset="UTF-8"');
    return oauthError(res, reply.status, reply.error, reply.error_description);
  }
  noStore(res).status(200).type("application/json").send(JSON.stringify(reply.token));
}

/** GET /oauth/jwks: the public keys that verify bearer tokens, including a successor published before it signs. */
export async function getJwks(deps: ReadDeps, _req: Request, res: Response): Promise<void> {
  try {
    const jwks = await request(deps.nc, identityJwks, {}, { timeoutMs: deps.timeoutMs });
    res.status(200).type("application/json").setHeader("Cache-Control", "public, max-age=300").send(JSON.stringify(jwks));
  } catch (err) {
    sendUpstreamError(res, err);
  }
}

/** RFC 8414 authorization server metadata. */
export function authorizationServerMetadata(base: URL) {
  const issuer = base.origin;
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    jwks_uri: `${issuer}/oauth/jwks`,
    grant_types_supported: ["client_credentials", "authorization_code", "refresh_token"],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
    scopes_supported: [ACCESS_TOKEN_SCOPE],
    // RFC 9207: the authorization response names us, so a client talking to several servers cannot be mixed up.
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/llms.txt`,
  };
}

/** Where each protected resource's RFC 9728 metadata is: the well-known prefix before the resource's path (RFC 9728 3.1). */
export const protectedResourceMetadataPath = (resource: OAuthResource): string => `/.well-known/oauth-protected-resource${resource === "mcp_live" ? MCP_LIVE_PATH : ""}`;

/**
 * RFC 9728 protected resource metadata: the HTTP API (paid and live routes) at the origin,
 * and the live tier's MCP endpoint; both accept the bearer in the Authorization header.
 */
export function protectedResourceMetadata(base: URL, which: OAuthResource = "api") {
  const origin = base.origin;
  return {
    resource: oauthResourceUrl(origin, which),
    authorization_servers: [origin],
    scopes_supported: [ACCESS_TOKEN_SCOPE],
    bearer_methods_supported: ["header"],
    resource_name: which === "api" ? "Scored Market Board" : "Scored Market Board live tier (MCP)",
    resource_documentation: `${origin}/llms.txt`,
  };
}

export function sendMetadata(res: Response, body: unknown): void {
  res.status(200).type("application/json").setHeader("Cache-Control", "public, max-age=3600").send(JSON.stringify(body));
}
