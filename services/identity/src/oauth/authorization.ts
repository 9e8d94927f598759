import {
  ACCESS_TOKEN_SCOPE,
  AUTHORIZATION_CODE_SECONDS,
  CONSENT_SECONDS,
  type AuthorizeErrorCode,
  type AuthorizeReply,
  type AuthorizeRequest,
  type ConsentPrompt,
  type ConsentReply,
  type ConsentRequest,
} from "@board/proto";
import type { Licenses } from "../licenses/licenses.js";
import type { ClientRegistry } from "./client-registry.js";
import type { OAuthClientRow } from "./clients.table.js";
import { openAuthorization, sealAuthorization, type PendingAuthorization } from "./consent-request.js";
import type { GrantStore } from "./grant-store.js";
import { hashOAuthSecret, newOAuthSecret } from "./opaque-secrets.js";
import { isS256Challenge } from "./pkce.js";
import { redirectUriRegistered } from "./redirect-uris.js";
import { readResources } from "./resources.js";

export interface AuthorizationDeps {
  clients: ClientRegistry;
  grants: GrantStore;
  licenses: Pick<Licenses, "checkKey">;
  consentKey: Uint8Array;
  issuer: string;
  now: () => Date;
}

/**
 * The authorization endpoint (RFC 6749 4.1 with PKCE, RFC 7636, S256 only): checks a
 * request, hands the gateway what the consent page shows, and on the holder's consent (the
 * licence key typed into the page) issues a code bound to the client, the redirect URI, the
 * challenge and the resources asked for.
 */
export class AuthorizationEndpoint {
  constructor(private readonly d: AuthorizationDeps) {}

  async authorize(req: AuthorizeRequest): Promise<AuthorizeReply> {
    // Until client, redirect URI and response type are known good, errors go to the person, never to a URI (RFC 6749 4.1.2.1).
    if (req.malformed !== undefined) return toPerson("invalid_request", req.malformed);
    if (!req.client_id) return toPerson("invalid_request", "client_id is required");
    const client = await this.d.clients.find(req.client_id);
    if (!client) return toPerson("invalid_request", "the client_id is not a registered client; the application must register at /oauth/register first");
    if (!req.redirect_uri) return toPerson("invalid_request", "redirect_uri is required");
    if (!redirectUriRegistered(client.redirectUris, req.redirect_uri)) return toPerson("invalid_request", "the redirect_uri is not one this client registered");
    // A request without the code response type is not one of this client's: redirecting it would make our origin an open redirector (RFC 9700 4.11.2).
    if (req.response_type === undefined) return toPerson("invalid_request", "response_type is required (response_type=code)");
    if (req.response_type !== "code") return toPerson("unsupported_response_type", "the only response_type is code");

    const back = (error: AuthorizeErrorCode, description: string): AuthorizeReply => ({
      ok: false,
      error,
      error_description: description,
      redirect: this.redirect(req.redirect_uri!, { error, error_description: description }, req.state),
    });
    if (req.code_challenge_method !== "S256")
      return back("invalid_request", "PKCE is required with code_challenge_method=S256; plain (or no method) is not accepted");
    if (!req.code_challenge || !isS256Challenge(req.code_challenge)) return back("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier (43 characters)");
    const scope = req.scope === undefined ? ACCESS_TOKEN_SCOPE : req.scope.split(" ").filter((s) => s !== "");
    if (Array.isArray(scope) && (scope.length === 0 || scope.some((s) => s !== ACCESS_TOKEN_SCOPE))) return back("invalid_scope", `the only scope is ${ACCESS_TOKEN_SCOPE}`);
    const resources = readResources(req.resource, this.d.issuer);
    if (!resources.ok) return back("invalid_target", resources.description);

    const pending: PendingAuthorization = {
      client_id: client.clientId,
      redirect_uri: req.redirect_uri,
      code_challenge: req.code_challenge,
      // No indicator: the HTTP API, as a client credentials token is.
      resources: resources.resources ?? ["api"],
      scope: ACCESS_TOKEN_SCOPE,
      ...(req.state !== undefined ? { state: req.state } : {}),
      exp: Math.floor(this.d.now().getTime() / 1000) + CONSENT_SECONDS,
    };
    return { ok: true, prompt: this.prompt(client, pending) };
  }

  /** POST of the consent page: approve with a licence key that covers what was asked, or deny. */
  async consent(req: ConsentRequest): Promise<ConsentReply> {
    const now = this.d.now();
    const opened = openAuthorization(this.d.consentKey, req.request, now);
    if (!opened.ok) {
      const message =
        opened.reason === "request_expired"
          ? "This sign-in page has expired. Start again from the application."
          : "This sign-in form was not issued by this server. Start again from the application.";
      return { ok: false, code: opened.reason, message, prompt: null };
    }
    const { pending } = opened;
    const client = await this.d.clients.find(pending.client_id);
    if (!client) return { ok: false, code: "request_invalid", message: "The application is no longer registered. Start again from the application.", prompt: null };
    if (req.decision === "deny") {
      return { ok: true, redirect: this.redirect(pending.redirect_uri, { error: "access_denied", error_description: "the license holder declined" }, pending.state) };
    }

    const again = (code: "license_unknown" | "license_lapsed" | "license_revoked" | "license_not_live", message: string): ConsentReply => ({ ok: false, code, message, prompt: this.prompt(client, pending) });
    if (!req.license_key) return again("license_unknown", "Enter your license key.");
    const check = await this.d.licenses.checkKey(req.license_key.trim());
    if (!check.ok) return again(check.code, CONSENT_REFUSALS[check.code]);
    if (pending.resources.includes("mcp_live") && check.license.kind !== "live_feed") {
      return again("license_not_live", "The live tier's MCP server needs a live-feed license; a scanner license does not open it.");
    }

    const code = newOAuthSecret("code");
    await this.d.grants.insertCode({
      codeHash: hashOAuthSecret(code),
      clientId: client.clientId,
      licenseId: check.license.id,
      redirectUri: pending.redirect_uri,
      codeChallenge: pending.code_challenge,
      resources: pending.resources,
      scope: pending.scope,
      expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_SECONDS * 1000),
    });
    return { ok: true, redirect: this.redirect(pending.redirect_uri, { code }, pending.state) };
  }

  private prompt(client: OAuthClientRow, pending: PendingAuthorization): ConsentPrompt {
    return {
      request: sealAuthorization(this.d.consentKey, pending),
      client_id: client.clientId,
      client_name: client.clientName,
      redirect_origin: new URL(pending.redirect_uri).origin,
      resources: pending.resources,
      scope: pending.scope,
      expires_at: new Date(pending.exp * 1000).toISOString(),
    };
  }

  /** The redirect URI with the answer, the client's state and our issuer (RFC 9207), its own query kept. */
  private redirect(uri: string, params: Record<string, string>, state: string | undefined): string {
    const url = new URL(uri);
    for (const [k, v] of Object.entries(params)) url.searchParams.append(k, v);
    if (state !== undefined) url.searchParams.append("state", state);
    url.searchParams.append("iss", this.d.issuer);
    return url.toString();
  }
}

const CONSENT_REFUSALS = {
  license_unknown: "That is not a license key of this service.",
  license_lapsed: "This license's paid period has ended; renew it to sign in.",
  license_revoked: "This license was revoked; ask the seller for a new one.",
} as const;

const toPerson = (error: AuthorizeErrorCode, description: string): AuthorizeReply => ({ ok: false, error, error_description: description, redirect: null });
