import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { oauthStack } from "./oauth-setup.js";
import { completeConsent, formOf, registerClient } from "./sign-in.js";

// The authorization code grant with PKCE, driven by openid-client (a client we did not write)
// and by hand for what a client must not be able to do.
const { stack, clock, issue } = oauthStack({ holder: "code flow test", live: true });
const REDIRECT = "http://127.0.0.1:53682/callback";

const mcpLive = () => `${stack.base}/mcp/live`;

async function publicClient(extra: Record<string, unknown> = {}): Promise<string> {
  const reg = await registerClient(stack.base, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], client_name: "Test host", ...extra });
  expect(reg.status, JSON.stringify(reg.body)).toBe(201);
  return reg.body["client_id"] as string;
}

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

/** An authorization URL built by hand (the hostile cases need what no client library would send). */
function authorizeUrl(params: Record<string, string | string[]>): URL {
  const url = new URL(`${stack.base}/oauth/authorize`);
  for (const [k, v] of Object.entries(params)) for (const one of [v].flat()) url.searchParams.append(k, one);
  return url;
}

/** A code for this client (consent given with `key`), with the verifier that redeems it. */
async function codeFor(clientId: string, key: string, resource: string | string[] = stack.base) {
  const { verifier, challenge } = pkce();
  const url = authorizeUrl({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: "S256", state: "s1", resource });
  const consent = await completeConsent(url, key);
  expect(consent.status, consent.page).toBe(302);
  const back = new URL(consent.location!);
  return { code: back.searchParams.get("code")!, verifier };
}

async function tokenRequest(fields: Record<string, string | string[]>): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  const res = await fetch(`${stack.base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
  expect(res.headers.get("cache-control")).toBe("no-store");
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const redeem = (clientId: string, code: string, verifier: string | undefined, extra: Record<string, string | string[]> = {}) =>
  tokenRequest({ grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, ...(verifier !== undefined ? { code_verifier: verifier } : {}), ...extra });

describe("openid-client runs the authorization code flow with PKCE", () => {
  it("discovers the server, signs in on the consent page, gets tokens bound to the resource, refreshes them, and a replayed refresh token revokes the sign-in", async () => {
    const { key } = await issue("live_feed");
    const clientId = await publicClient();
    const config = await oidc.discovery(new URL(stack.base), clientId, undefined, oidc.None(), { algorithm: "oauth2", execute: [oidc.allowInsecureRequests] });
    expect(config.serverMetadata()).toMatchObject({ code_challenge_methods_supported: ["S256"], registration_endpoint: `${stack.base}/oauth/register` });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: "board:live",
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      resource: stack.base,
    });
    const consent = await completeConsent(url, key);
    expect(consent.status).toBe(302);
    expect(consent.location).not.toContain(key);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(consent.location!), { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "board:live" });
    expect(tokens.refresh_token).toMatch(/^brt_/);
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${stack.base}/oauth/jwks`)), { issuer: stack.base, audience: stack.base, typ: "at+jwt" });
    expect(payload.client_id).toBe(clientId);

    const live = await fetch(`${stack.base}/api/live/feed`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(live.status).toBe(200);
    expect(live.headers.get("x-board-tier")).toBe("bearer");
    await live.body?.cancel();

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toMatch(/^brt_/);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect((await fetch(`${stack.base}/api/live/rules`, { headers: { authorization: `Bearer ${refreshed.access_token}` } })).status).toBe(200);

    // The first refresh token again: a replay. It is refused, and the sign-in with it: the newest refresh token stops too.
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("a confidential client (client_secret_basic, the RFC 7591 default) authenticates its code and refresh requests", async () => {
    const { key } = await issue("live_feed");
    const reg = await registerClient(stack.base, { redirect_uris: ["https://host.example/cb"], grant_types: ["authorization_code", "refresh_token"] });
    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({ token_endpoint_auth_method: "client_secret_basic", client_secret_expires_at: 0 });
    const secret = reg.body["client_secret"] as string;
    const config = await oidc.discovery(new URL(stack.base), reg.body["client_id"] as string, undefined, oidc.ClientSecretBasic(secret), { algorithm: "oauth2", execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: "https://host.example/cb", code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: "S256", state: "x" });
    const consent = await completeConsent(url, key);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(consent.location!), { pkceCodeVerifier: verifier, expectedState: "x" });
    expect(decodeJwt(tokens.access_token).aud).toBe(stack.base);
    expect((await oidc.refreshTokenGrant(config, tokens.refresh_token!)).access_token).toBeTruthy();
    const wrong = await oidc.discovery(new URL(stack.base), reg.body["client_id"] as string, undefined, oidc.ClientSecretBasic("bcs_wrong"), { algorithm: "oauth2", execute: [oidc.allowInsecureRequests] });
    await expect(oidc.refreshTokenGrant(wrong, tokens.refresh_token!)).rejects.toMatchObject({ status: 401 });
  });
});

describe("hostile requests are refused with the RFCs' error codes", () => {
  it("PKCE is S256 only: plain, a missing method or a missing challenge go back to the client as invalid_request", async () => {
    const clientId = await publicClient();
    const base = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, state: "st" };
    const cases: Record<string, string>[] = [{ code_challenge: "a".repeat(43), code_challenge_method: "plain" }, { code_challenge: "a".repeat(43) }, { code_challenge_method: "S256" }];
    for (const extra of cases) {
      const res = await fetch(authorizeUrl({ ...base, ...extra }), { redirect: "manual" });
      expect(res.status, JSON.stringify(extra)).toBe(302);
      const back = new URL(res.headers.get("location")!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: "invalid_request", state: "st", iss: stack.base });
    }
    const scope = await fetch(authorizeUrl({ ...base, scope: "admin", ...pkceParams() }), { redirect: "manual" });
    expect(new URL(scope.headers.get("location")!).searchParams.get("error")).toBe("invalid_scope");
    const target = await fetch(authorizeUrl({ ...base, resource: "https://evil.example/api", ...pkceParams() }), { redirect: "manual" });
    expect(new URL(target.headers.get("location")!).searchParams.get("error")).toBe("invalid_target");
  });

  it("an unregistered redirect URI or unknown client is told to the person, never redirected; loopback URIs match on any port", async () => {
    const clientId = await publicClient();
    const cases: Record<string, string>[] = [
      { client_id: clientId, redirect_uri: "https://evil.example/cb" },
      { client_id: clientId, redirect_uri: "http://127.0.0.1:53682/other" },
      { client_id: "bcl_unknown", redirect_uri: REDIRECT },
      { client_id: clientId },
    ];
    for (const params of cases) {
      const res = await fetch(authorizeUrl({ response_type: "code", ...params, ...pkceParams() }), { redirect: "manual" });
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    }
    const otherPort = await fetch(authorizeUrl({ response_type: "code", client_id: clientId, redirect_uri: "http://127.0.0.1:61000/callback", ...pkceParams() }), { redirect: "manual" });
    expect(otherPort.status).toBe(200);
  });

  it("a malformed request for a registered client is told on the error page, never redirected to the client's URI (RFC 9700 4.11.2)", async () => {
    const clientId = await publicClient();
    const good = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, state: "st", ...pkceParams() };
    const without = (name: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== name));
    const cases: Record<string, string | string[]>[] = [
      { ...good, response_type: "token" },
      { ...good, response_type: "code token" },
      { ...good, response_type: "" },
      without("response_type"),
      { ...good, client_id: "bcl_unknown" },
      without("client_id"),
      { ...good, redirect_uri: "https://evil.example/cb" },
      { ...good, redirect_uri: `${REDIRECT}?next=https://evil.example/` },
      without("redirect_uri"),
      { ...good, response_type: ["code", "code"] },
      { ...good, redirect_uri: [REDIRECT, "https://evil.example/cb"] },
      { client_id: clientId, redirect_uri: REDIRECT },
      { redirect_uri: REDIRECT },
    ];
    for (const params of cases) {
      const res = await fetch(authorizeUrl(params), { redirect: "manual" });
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get("location"), JSON.stringify(params)).toBeNull();
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const csp = res.headers.get("content-security-policy")!;
      for (const part of ["default-src 'none'", "form-action 'none'", "frame-ancestors 'none'"]) expect(csp).toContain(part);
      expect(await res.text()).toContain("Sign-in refused");
    }
    // Once client, redirect URI and response type are good, the client hears the error at its registered URI (RFC 6749 4.1.2.1).
    const scope = await fetch(authorizeUrl({ ...good, scope: "admin" }), { redirect: "manual" });
    expect(scope.status).toBe(302);
    expect(new URL(scope.headers.get("location")!).origin + new URL(scope.headers.get("location")!).pathname).toBe(REDIRECT);
  });

  it("registration takes https and loopback redirect URIs only (RFC 7591 invalid_redirect_uri)", async () => {
    for (const uri of ["http://example.com/cb", "myapp://cb", "https://host.example/cb#frag", "not a url", "https://user:pw@host.example/cb"]) {
      const reg = await registerClient(stack.base, { redirect_uris: [uri] });
      expect(reg.status, uri).toBe(400);
      expect(reg.body["error"], uri).toBe("invalid_redirect_uri");
    }
    expect((await registerClient(stack.base, {})).body["error"]).toBe("invalid_redirect_uri");
    expect((await registerClient(stack.base, { redirect_uris: ["https://a.example/cb"], grant_types: ["client_credentials"] })).body["error"]).toBe("invalid_client_metadata");
    expect((await registerClient(stack.base, { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "private_key_jwt" })).body["error"]).toBe("invalid_client_metadata");
    for (const uri of ["https://a.example/cb", "http://127.0.0.1/cb", "http://[::1]:8000/cb", "http://localhost:3000/oauth/callback"]) {
      expect((await registerClient(stack.base, { redirect_uris: [uri], token_endpoint_auth_method: "none" })).status, uri).toBe(201);
    }
  });

  it("a wrong or missing verifier, a reused code, a code for another client, another redirect URI: invalid_grant; a reused code revokes what it bought", async () => {
    const { key } = await issue("live_feed");
    const clientId = await publicClient();
    const other = await publicClient();

    const a = await codeFor(clientId, key);
    expect((await redeem(clientId, a.code, pkce().verifier)).body["error"]).toBe("invalid_grant");
    // The code was presented once: even the right verifier cannot redeem it now.
    expect((await redeem(clientId, a.code, a.verifier)).body["error"]).toBe("invalid_grant");

    const b = await codeFor(clientId, key);
    const missing = await redeem(clientId, b.code, undefined);
    expect(missing).toMatchObject({ status: 400, body: { error: "invalid_grant" } });

    const c = await codeFor(clientId, key);
    expect((await redeem(other, c.code, c.verifier)).body["error"]).toBe("invalid_grant");

    const d = await codeFor(clientId, key);
    expect((await redeem(clientId, d.code, d.verifier, { redirect_uri: "http://127.0.0.1:53682/elsewhere" })).body["error"]).toBe("invalid_grant");

    const e = await codeFor(clientId, key);
    const first = await redeem(clientId, e.code, e.verifier);
    expect(first.status).toBe(200);
    const again = await redeem(clientId, e.code, e.verifier);
    expect(again).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    const refresh = await tokenRequest({ grant_type: "refresh_token", client_id: clientId, refresh_token: first.body["refresh_token"] as string });
    expect(refresh.body["error"]).toBe("invalid_grant");

    const unknown = await tokenRequest({ grant_type: "authorization_code", client_id: "bcl_nobody", code: "bac_x", redirect_uri: REDIRECT, code_verifier: a.verifier });
    expect(unknown).toMatchObject({ status: 401, body: { error: "invalid_client" } });
  });

  it("a token is for the resource it was asked for: one for /mcp/live alone is refused at the HTTP live routes, one asked for both opens both", async () => {
    const { key } = await issue("live_feed");
    const clientId = await publicClient();
    const mcpOnly = await codeFor(clientId, key, mcpLive());
    // A token request cannot widen what was authorized (RFC 8707 invalid_target).
    expect((await redeem(clientId, mcpOnly.code, mcpOnly.verifier, { resource: stack.base })).body["error"]).toBe("invalid_target");
    const again = await codeFor(clientId, key, mcpLive());
    const token = await redeem(clientId, again.code, again.verifier);
    expect(decodeJwt(token.body["access_token"] as string).aud).toBe(mcpLive());
    const http = await fetch(`${stack.base}/api/live/feed`, { headers: { authorization: `Bearer ${token.body["access_token"] as string}` } });
    expect(http.status).toBe(401);
    expect(http.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    expect(((await http.json()) as { error: { code: string } }).error.code).toBe("token_invalid");
    // Refreshing for the HTTP API is widening too.
    expect((await tokenRequest({ grant_type: "refresh_token", client_id: clientId, refresh_token: token.body["refresh_token"] as string, resource: stack.base })).body["error"]).toBe("invalid_target");

    const both = await codeFor(clientId, key, [stack.base, mcpLive()]);
    const wide = await redeem(clientId, both.code, both.verifier);
    expect(decodeJwt(wide.body["access_token"] as string).aud).toEqual([stack.base, mcpLive()]);
    expect((await fetch(`${stack.base}/api/live/feed`, { headers: { authorization: `Bearer ${wide.body["access_token"] as string}` } })).status).toBe(200);
    // Narrowed on refresh: the HTTP API alone.
    const narrow = await tokenRequest({ grant_type: "refresh_token", client_id: clientId, refresh_token: wide.body["refresh_token"] as string, resource: stack.base });
    expect(decodeJwt(narrow.body["access_token"] as string).aud).toBe(stack.base);
  });
});

describe("the consent page", () => {
  it("has a strict CSP that lets its form go only here and to the client, and never echoes the key", async () => {
    const clientId = await publicClient({ client_name: "<script>alert(1)</script>" });
    const res = await fetch(authorizeUrl({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, ...pkceParams(), resource: mcpLive() }));
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    for (const part of ["default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self' http://127.0.0.1:53682"]) expect(csp).toContain(part);
    expect(csp).not.toContain("script-src");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const page = await res.text();
    expect(page).not.toContain("<script>");
    expect(page).toContain("&lt;script&gt;");
    expect(page).toMatch(/<form method="post" action="\/oauth\/authorize">/);
    expect(page).toMatch(/type="password"/);

    const { key } = await issue("live_feed");
    const wrong = await completeConsent(authorizeUrl({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, ...pkceParams() }), "blk_not-a-license-key");
    expect(wrong.status).toBe(400);
    expect(wrong.page).toContain("not a license key");
    expect(formOf(wrong.page).request).toBeTruthy();
    // A scanner license does not open the live tier's MCP server.
    const scanner = await issue("scanner");
    const notLive = await completeConsent(authorizeUrl({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, ...pkceParams(), resource: mcpLive() }), scanner.key);
    expect(notLive.status).toBe(400);
    expect(notLive.page).toContain("live-feed license");
    expect(notLive.page).not.toContain(scanner.key);

    const denied = await completeConsent(authorizeUrl({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, state: "q", ...pkceParams() }), key, "deny");
    expect(Object.fromEntries(new URL(denied.location!).searchParams)).toMatchObject({ error: "access_denied", state: "q" });
  });

  it("refuses a form from another site, one changed on the way, and one too old", async () => {
    const { key } = await issue("live_feed");
    const clientId = await publicClient();
    const page = await (await fetch(authorizeUrl({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, ...pkceParams() }))).text();
    const { request: sealed } = formOf(page);
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${stack.base}/oauth/authorize`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(body) });

    const crossSite = await post({ request: sealed, decision: "approve", license_key: key }, { origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    expect((await post({ request: sealed, decision: "approve", license_key: key }, { "sec-fetch-site": "cross-site" })).status).toBe(403);

    const [body, mac] = sealed.split(".");
    const changed = JSON.parse(Buffer.from(body!, "base64url").toString()) as Record<string, unknown>;
    changed["redirect_uri"] = "https://evil.example/cb";
    const forged = await post({ request: `${Buffer.from(JSON.stringify(changed)).toString("base64url")}.${mac}`, decision: "approve", license_key: key });
    expect(forged.status).toBe(400);
    expect(forged.headers.get("location")).toBeNull();

    clock.offsetMs = 601_000;
    try {
      const old = await post({ request: sealed, decision: "approve", license_key: key });
      expect(old.status).toBe(400);
      expect(await old.text()).toContain("expired");
    } finally {
      clock.offsetMs = 0;
    }
    const sameSite = await post({ request: sealed, decision: "approve", license_key: key }, { origin: stack.base, "sec-fetch-site": "same-origin" });
    expect(sameSite.status).toBe(302);
  });
});

describe("refresh follows the license", () => {
  it("a lapsed license stops refresh; a code older than a minute is refused", async () => {
    const { key, license } = await issue("live_feed");
    const clientId = await publicClient();
    const stale = await codeFor(clientId, key);
    const fresh = await codeFor(clientId, key);
    const tokens = await redeem(clientId, fresh.code, fresh.verifier);
    clock.offsetMs = 61_000;
    try {
      expect((await redeem(clientId, stale.code, stale.verifier)).body["error"]).toBe("invalid_grant");
    } finally {
      clock.offsetMs = 0;
    }
    clock.offsetMs = Date.parse(license.period_end) - Date.now() + 1000;
    try {
      const refused = await tokenRequest({ grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.body["refresh_token"] as string });
      expect(refused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    } finally {
      clock.offsetMs = 0;
    }
  });
});

function pkceParams(): Record<string, string> {
  return { code_challenge: pkce().challenge, code_challenge_method: "S256" };
}
