import { ACCESS_TOKEN_SCOPE, ACCESS_TOKEN_SECONDS, oauthResourceUrl, type OAuthResource, type TokenReply, type TokenRequest } from "@board/proto";
import type { Logger } from "@board/service-kit";
import type { Licenses } from "../licenses/licenses.js";
import type { ClientRegistry } from "./client-registry.js";
import type { OAuthClientRow } from "./clients.table.js";
import type { GrantStore } from "./grant-store.js";
import type { OAuth } from "./index.js";
import { hashOAuthSecret, newOAuthSecret } from "./opaque-secrets.js";
import { verifierMatches } from "./pkce.js";
import { readResources } from "./resources.js";
import { readGrantClient, refuse, refuseClient } from "./token-request.js";

/** A refresh token is good this long unused; each use gives a fresh one (a sign-in lasts while it is used, and while its licence does). */
export const REFRESH_TOKEN_SECONDS = 30 * 86_400;

export interface CodeGrantDeps {
  clients: ClientRegistry;
  grants: GrantStore;
  licenses: Pick<Licenses, "verifyingById">;
  signer: Pick<OAuth, "sign">;
  issuer: string;
  now: () => Date;
  log: Logger;
}

type Authenticated = { ok: true; client: OAuthClientRow } | Extract<TokenReply, { ok: false }>;

/**
 * The token endpoint's grants for registered clients: authorization_code (RFC 6749 4.1.3 with
 * RFC 7636's S256 verifier) and refresh_token (rotated on every use; a used one presented
 * again revokes its whole family). Every token's audience is the resources asked for (RFC 8707).
 */
export class CodeGrants {
  constructor(private readonly d: CodeGrantDeps) {}

  async authorizationCode(req: TokenRequest): Promise<TokenReply> {
    const auth = await this.authenticate(req);
    if (!auth.ok) return auth;
    const { client } = auth;
    if (!req.code) return refuse("invalid_request", "code is required");
    if (!req.redirect_uri) return refuse("invalid_request", "redirect_uri is required: the one the authorization request named");
    const now = this.d.now();
    const codeHash = hashOAuthSecret(req.code);
    const taken = await this.d.grants.takeCode(codeHash, now);
    if (taken.kind === "unknown") return refuse("invalid_grant", "the authorization code is not valid");
    const code = taken.code;
    if (taken.kind === "reused") {
      // RFC 6749 4.1.2: a code used twice was stolen or replayed: what it bought is revoked.
      if (code.familyId) await this.d.grants.revokeFamily(code.familyId, now);
      this.d.log.warn({ client: code.clientId }, "authorization code presented again; its refresh tokens are revoked");
      return refuse("invalid_grant", "the authorization code was already used");
    }
    if (code.clientId !== client.clientId) return refuse("invalid_grant", "the authorization code was issued to another client");
    if (code.expiresAt.getTime() <= now.getTime()) return refuse("invalid_grant", "the authorization code has expired");
    if (code.redirectUri !== req.redirect_uri) return refuse("invalid_grant", "redirect_uri differs from the authorization request's");
    if (!req.code_verifier) return refuse("invalid_grant", "code_verifier is required: the code was issued to a PKCE challenge");
    if (!verifierMatches(req.code_verifier, code.codeChallenge)) return refuse("invalid_grant", "the code_verifier does not match the code_challenge");
    const narrowed = this.narrow(req.resource, code.resources);
    if (!narrowed.ok) return narrowed;

    const license = await this.d.licenses.verifyingById(code.licenseId);
    if (!license) return refuse("invalid_grant", "the license behind this sign-in is no longer valid");
    let refreshToken: string | undefined;
    if (client.grantTypes.includes("refresh_token")) {
      refreshToken = newOAuthSecret("refresh");
      const grant = { clientId: client.clientId, licenseId: license.id, resources: code.resources, scope: code.scope };
      await this.d.grants.startFamily(grant, codeHash, { tokenHash: hashOAuthSecret(refreshToken), expiresAt: this.refreshExpiry(now) }, now);
    }
    return this.tokens(client, { id: license.id, kind: license.kind, clientId: license.clientId }, narrowed.resources, refreshToken);
  }

  async refreshToken(req: TokenRequest): Promise<TokenReply> {
    const auth = await this.authenticate(req);
    if (!auth.ok) return auth;
    const { client } = auth;
    if (!client.grantTypes.includes("refresh_token")) return refuse("unauthorized_client", "this client did not register the refresh_token grant");
    if (!req.refresh_token) return refuse("invalid_request", "refresh_token is required");
    if (req.scope !== undefined && req.scope.split(" ").some((s) => s !== "" && s !== ACCESS_TOKEN_SCOPE)) return refuse("invalid_scope", `the only scope is ${ACCESS_TOKEN_SCOPE}`);
    const now = this.d.now();
    const tokenHash = hashOAuthSecret(req.refresh_token);
    const family = await this.d.grants.familyOf(tokenHash);
    if (!family) return refuse("invalid_grant", "the refresh token is not valid");
    if (family.clientId !== client.clientId) {
      // Another client holding this family's token: it leaked, so the family goes.
      await this.d.grants.revokeFamily(family.id, now);
      return refuse("invalid_grant", "the refresh token was issued to another client");
    }
    const narrowed = this.narrow(req.resource, family.resources);
    if (!narrowed.ok) return narrowed;
    // Checked before the token is spent: a renewed licence lets the same refresh token work again.
    const license = await this.d.licenses.verifyingById(family.licenseId);
    if (!license) return refuse("invalid_grant", "the license behind this sign-in is no longer valid; renew it, then sign in again");

    const next = newOAuthSecret("refresh");
    const rotated = await this.d.grants.rotate(tokenHash, { tokenHash: hashOAuthSecret(next), expiresAt: this.refreshExpiry(now) }, now);
    switch (rotated.kind) {
      case "taken":
        return this.tokens(client, { id: license.id, kind: license.kind, clientId: license.clientId }, narrowed.resources, next);
      case "reused":
        await this.d.grants.revokeFamily(rotated.family.id, now);
        this.d.log.warn({ client: client.clientId }, "a used refresh token was presented again; its family is revoked");
        return refuse("invalid_grant", "the refresh token was already used; this sign-in is revoked: sign in again");
      case "revoked":
        return refuse("invalid_grant", "this sign-in was revoked: sign in again");
      case "expired":
        return refuse("invalid_grant", "the refresh token has expired: sign in again");
      case "unknown":
        return refuse("invalid_grant", "the refresh token is not valid");
    }
  }

  private async authenticate(req: TokenRequest): Promise<Authenticated> {
    const presented = readGrantClient(req);
    if (!presented.ok) return presented;
    const check = await this.d.clients.authenticate(presented.client);
    return check.ok ? check : refuseClient(check.description, presented.client.basic);
  }

  /** RFC 8707 2.2: a token request may ask for fewer of the granted resources, never others. */
  private narrow(indicators: string[] | undefined, granted: OAuthResource[]): { ok: true; resources: OAuthResource[] } | Extract<TokenReply, { ok: false }> {
    const read = readResources(indicators, this.d.issuer);
    if (!read.ok) return { ok: false, status: 400, error: "invalid_target", error_description: read.description, basic: false };
    if (read.resources === null) return { ok: true, resources: granted };
    if (read.resources.some((r) => !granted.includes(r))) {
      return { ok: false, status: 400, error: "invalid_target", error_description: "the resource was not part of the authorization", basic: false };
    }
    return { ok: true, resources: read.resources };
  }

  private refreshExpiry(now: Date): Date {
    return new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000);
  }

  private async tokens(client: OAuthClientRow, license: { id: string; kind: "scanner" | "live_feed"; clientId: string }, resources: OAuthResource[], refreshToken: string | undefined): Promise<TokenReply> {
    const audience = resources.map((r) => oauthResourceUrl(this.d.issuer, r));
    const accessToken = await this.d.signer.sign({
      clientId: client.clientId,
      subject: license.clientId,
      license: { id: license.id, kind: license.kind },
      audience: audience.length === 1 ? audience[0]! : audience,
    });
    return {
      ok: true,
      token: {
        access_token: accessToken,
        token_type: "Bearer",
        expires_in: ACCESS_TOKEN_SECONDS,
        scope: ACCESS_TOKEN_SCOPE,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
      },
    };
  }
}
