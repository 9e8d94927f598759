import { generateKeyPairSync } from "node:crypto";
import { identityLicenseCancel } from "@board/proto";
import { request } from "@board/service-kit";
import { createRemoteJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, SignJWT, UnsecuredJWT, base64url } from "jose";
import * as oidc from "openid-client";
import { describe, expect, it } from "vitest";
import { oauthStack } from "./oauth-setup.js";

const { stack, clock, issue } = oauthStack({ holder: "integration test" });

const get = (path: string, headers: Record<string, string>) => fetch(`${stack.base}${path}`, { headers });

async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

describe("license keys on X-License-Key", () => {
  it("a scanner license reads every paid board route live, uncapped, and not the live feed", async () => {
    const { key } = await issue("scanner");
    const results = await Promise.all(Array.from({ length: 30 }, () => get("/api/board/buylist", { "x-license-key": key })));
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    const body = (await results[0]!.json()) as Record<string, unknown>;
    expect(body.tier).toBeUndefined();
    expect(results[0]!.headers.get("x-board-tier")).toBe("scanner_license");
    expect(results[0]!.headers.get("payment-response")).toBeNull();
    for (const path of ["/api/board/agent", "/api/board/name?sym=AAPL", "/api/board/regime"]) expect((await get(path, { "x-license-key": key })).status, path).toBe(200);
    const live = await get("/api/live/feed", { "x-license-key": key });
    expect(live.status).toBe(403);
    expect(await codeOf(live)).toBe("forbidden");
  });

  it("a live-feed license passes the live tier's door", async () => {
    const { key } = await issue("live_feed", "yearly");
    expect((await get("/api/board/sectors", { "x-license-key": key })).status).toBe(200);
    const live = await get("/api/live/feed", { "x-license-key": key });
    // Its content arrives with the live tier's own capability; the door itself is open.
    expect([401, 402, 403]).not.toContain(live.status);
  });

  it("a license identity verified once is not asked of identity again while it verifies (the gateway keeps it until period_end)", async () => {
    const { key } = await issue("scanner");
    expect((await get("/api/board/regime", { "x-license-key": key })).status).toBe(200);
    const before = await identityResolves();
    const again = await Promise.all(Array.from({ length: 20 }, () => get("/api/board/regime", { "x-license-key": key })));
    expect(again.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(await identityResolves()).toBe(before);
    // An unknown key is asked once, then refused again without asking for REFUSED_CREDENTIAL_SECONDS (security finding 3).
    for (let i = 0; i < 3; i++) expect((await get("/api/board/regime", { "x-license-key": "blk_unknown-key" })).status).toBe(403);
    expect(await identityResolves()).toBe(before + 1);
  });

  it("refuses an unknown key with 403, and X-Board-License-Key is not read", async () => {
    const unknown = await get("/api/board/buylist", { "x-license-key": "blk_not-a-license" });
    expect(unknown.status).toBe(403);
    expect(await codeOf(unknown)).toBe("license_unknown");
    const { key } = await issue("scanner");
    const variant = await get("/api/board/buylist", { "x-board-license-key": key });
    expect(variant.status).toBe(402);
    await variant.body?.cancel();
  });

  it("a cancelled license works until the end of its paid period, then gets 403", async () => {
    const { key, license } = await issue("scanner");
    const cancelled = await request(stack.nc, identityLicenseCancel, { license_id: license.license_id }, { timeoutMs: 5000 });
    expect(cancelled.license.state).toBe("cancelled");
    expect((await get("/api/board/leaders", { "x-license-key": key })).status).toBe(200);
    clock.offsetMs = Date.parse(license.period_end) - Date.now() + 1000;
    try {
      const lapsed = await get("/api/board/leaders", { "x-license-key": key });
      expect(lapsed.status).toBe(403);
      expect(await codeOf(lapsed)).toBe("license_lapsed");
    } finally {
      clock.offsetMs = 0;
    }
  });
});

describe("OAuth client credentials", () => {
  const discover = async (clientId: string, secret: string, auth: "post" | "basic") =>
    oidc.discovery(new URL(stack.base), clientId, undefined, auth === "post" ? oidc.ClientSecretPost(secret) : oidc.ClientSecretBasic(secret), {
      algorithm: "oauth2",
      execute: [oidc.allowInsecureRequests],
    });

  it("openid-client gets a token with both client authentication methods; jose's remote JWKS verifies it; the bearer reads live", async () => {
    const { key, license } = await issue("scanner");
    const jwks = createRemoteJWKSet(new URL(`${stack.base}/oauth/jwks`));
    for (const auth of ["post", "basic"] as const) {
      const config = await discover(license.client_id, key, auth);
      const token = await oidc.clientCredentialsGrant(config, { scope: "board:live" });
      expect(token).toMatchObject({ token_type: "bearer", expires_in: 3600, scope: "board:live" });
      const { payload, protectedHeader } = await jwtVerify(token.access_token, jwks, { issuer: stack.base, audience: stack.base, algorithms: ["ES256"] });
      expect(protectedHeader.alg).toBe("ES256");
      expect(protectedHeader.kid).toBeTruthy();
      expect(payload.exp! - payload.iat!).toBe(3600);
      const read = await get("/api/board/buylist", { authorization: `Bearer ${token.access_token}` });
      expect(read.status).toBe(200);
      expect(read.headers.get("x-board-tier")).toBe("bearer");
      await read.body?.cancel();
    }
  });

  it("answers token errors exactly as RFC 6749 5.2, never cached", async () => {
    const { key, license } = await issue("scanner");
    const free = (await (await fetch(`${stack.base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"email":"oauth@example.com"}' })).json()) as { key: string };
    const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
    const cases: [string, RequestInit, number, string][] = [
      ["unsupported grant", form({ grant_type: "password", client_id: license.client_id, client_secret: key }), 400, "unsupported_grant_type"],
      ["no grant", form({ client_id: license.client_id, client_secret: key }), 400, "invalid_request"],
      ["wrong secret", form({ grant_type: "client_credentials", client_id: license.client_id, client_secret: "blk_wrong" }), 401, "invalid_client"],
      ["a free key as secret", form({ grant_type: "client_credentials", client_id: license.client_id, client_secret: free.key }), 401, "invalid_client"],
      ["no client", form({ grant_type: "client_credentials" }), 401, "invalid_client"],
      ["two methods", { ...form({ grant_type: "client_credentials", client_id: license.client_id, client_secret: key }), headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(license.client_id, key) } }, 400, "invalid_request"],
      ["bad scope", form({ grant_type: "client_credentials", client_id: license.client_id, client_secret: key, scope: "admin" }), 400, "invalid_scope"],
      ["JSON body", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grant_type: "client_credentials" }) }, 400, "invalid_request"],
      ["repeated parameter", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `grant_type=client_credentials&grant_type=client_credentials` }, 400, "invalid_request"],
    ];
    for (const [what, init, status, error] of cases) {
      const res = await fetch(`${stack.base}/oauth/token`, init);
      expect(res.status, what).toBe(status);
      expect(res.headers.get("cache-control"), what).toBe("no-store");
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error, what).toBe(error);
      expect(JSON.stringify(body)).not.toContain(key);
    }
    const wrongBasic = await fetch(`${stack.base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(license.client_id, "blk_wrong") }, body: "grant_type=client_credentials" });
    expect(wrongBasic.status).toBe(401);
    expect(wrongBasic.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("refuses bearer tokens that are unsigned, HS256 with the public key, from an unknown key, tampered or expired", async () => {
    const { key, license } = await issue("scanner");
    const token = await oidc.clientCredentialsGrant(await discover(license.client_id, key, "post"), { scope: "board:live" });
    const claims = JSON.parse(Buffer.from(token.access_token.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
    const { kid } = decodeProtectedHeader(token.access_token);
    const jwks = (await (await fetch(`${stack.base}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    const publicJwk = jwks.keys.find((k) => k.kid === kid)!;

    const none = new UnsecuredJWT(claims).encode();
    const hs256 = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid, typ: "at+jwt" }).sign(new TextEncoder().encode(JSON.stringify(publicJwk)));
    const stranger = await generateKeyPair("ES256");
    const strangerKid = (await exportJWK(stranger.publicKey)).x!;
    const unknownKid = await new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: strangerKid, typ: "at+jwt" }).sign(stranger.privateKey);
    const sameKidOtherKey = await new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid, typ: "at+jwt" }).sign(stranger.privateKey);
    const [h, , s] = token.access_token.split(".");
    const tampered = `${h}.${base64url.encode(JSON.stringify({ ...claims, scope: "admin" }))}.${s}`;
    // An RS256 key in the header's jwk is never trusted either.
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const rs256 = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid }).sign(rsa.privateKey);

    for (const [what, bad] of Object.entries({ none, hs256, unknownKid, sameKidOtherKey, tampered, rs256 })) {
      const res = await get("/api/board/buylist", { authorization: `Bearer ${bad}` });
      expect(res.status, what).toBe(401);
      expect(res.headers.get("www-authenticate"), what).toMatch(/^Bearer .*error="invalid_token"/);
      expect(await codeOf(res), what).toBe("token_invalid");
    }
    expect((await get("/api/board/buylist", { authorization: `Bearer ${token.access_token}` })).status).toBe(200);
    clock.offsetMs = 3601_000;
    try {
      const expired = await get("/api/board/buylist", { authorization: `Bearer ${token.access_token}` });
      expect(expired.status).toBe(401);
      expect(await codeOf(expired)).toBe("token_invalid");
    } finally {
      clock.offsetMs = 0;
    }
  });

  it("publishes a rotated key before it signs; jose's remote JWKS picks it up; the old key stays until its last token expires", async () => {
    const { key, license } = await issue("scanner");
    const config = await discover(license.client_id, key, "basic");
    const jwks = createRemoteJWKSet(new URL(`${stack.base}/oauth/jwks`), { cooldownDuration: 500 });
    const before = await oidc.clientCredentialsGrant(config, { scope: "board:live" });
    await jwtVerify(before.access_token, jwks, { issuer: stack.base, audience: stack.base });
    const oldKid = decodeProtectedHeader(before.access_token).kid;

    const next = await stack.identity!.oauth.rotate();
    const published = (await (await fetch(`${stack.base}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    expect(published.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([oldKid, next.kid]));
    // Not signing yet: tokens still come from the old key.
    expect(decodeProtectedHeader((await oidc.clientCredentialsGrant(config, { scope: "board:live" })).access_token).kid).toBe(oldKid);

    clock.offsetMs = next.signsFrom.getTime() - Date.now() + 1000;
    try {
      const after = await oidc.clientCredentialsGrant(config, { scope: "board:live" });
      expect(decodeProtectedHeader(after.access_token).kid).toBe(next.kid);
      await new Promise((r) => setTimeout(r, 600));
      await jwtVerify(after.access_token, jwks, { issuer: stack.base, audience: stack.base, currentDate: new Date(Date.now() + clock.offsetMs) });
      expect((await get("/api/board/buylist", { authorization: `Bearer ${before.access_token}` })).status).toBe(200);
      expect((await get("/api/board/buylist", { authorization: `Bearer ${after.access_token}` })).status).toBe(200);
      const stillPublished = (await (await fetch(`${stack.base}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
      expect(stillPublished.keys.map((k) => k.kid)).toContain(oldKid);

      clock.offsetMs += 3600_000 + 60_000;
      const later = (await (await fetch(`${stack.base}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
      expect(later.keys.map((k) => k.kid)).not.toContain(oldKid);
      expect(later.keys.map((k) => k.kid)).toContain(next.kid);
    } finally {
      clock.offsetMs = 0;
    }
  });

  it("has RFC 8414 and RFC 9728 metadata and no OpenID configuration", async () => {
    const as = (await (await fetch(`${stack.base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(as).toMatchObject({
      issuer: stack.base,
      authorization_endpoint: `${stack.base}/oauth/authorize`,
      token_endpoint: `${stack.base}/oauth/token`,
      registration_endpoint: `${stack.base}/oauth/register`,
      jwks_uri: `${stack.base}/oauth/jwks`,
      grant_types_supported: ["client_credentials", "authorization_code", "refresh_token"],
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post", "none"],
      authorization_response_iss_parameter_supported: true,
    });
    const pr = (await (await fetch(`${stack.base}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(pr).toMatchObject({ resource: stack.base, authorization_servers: [stack.base], bearer_methods_supported: ["header"] });
    const mcp = (await (await fetch(`${stack.base}/.well-known/oauth-protected-resource/mcp/live`)).json()) as Record<string, unknown>;
    expect(mcp).toMatchObject({ resource: `${stack.base}/mcp/live`, authorization_servers: [stack.base], scopes_supported: ["board:live"], bearer_methods_supported: ["header"] });
    expect((await fetch(`${stack.base}/.well-known/openid-configuration`)).status).toBe(404);
    // An authorization request from no registered client is told to the person, never redirected.
    const authorize = await fetch(`${stack.base}/oauth/authorize?response_type=code&client_id=x&redirect_uri=https://evil.example/cb`, { redirect: "manual" });
    expect(authorize.status).toBe(400);
    expect(authorize.headers.get("location")).toBeNull();
  });

  it("a bearer stops with its license", async () => {
    const { key, license } = await issue("scanner");
    const token = await oidc.clientCredentialsGrant(await discover(license.client_id, key, "post"), { scope: "board:live" });
    await request(stack.nc, identityLicenseCancel, { license_id: license.license_id }, { timeoutMs: 5000 });
    expect((await get("/api/board/buylist", { authorization: `Bearer ${token.access_token}` })).status).toBe(200);
    clock.offsetMs = Date.parse(license.period_end) - Date.now() + 1000;
    try {
      // The token itself would have expired by then as well; a fresh one is refused at the token endpoint.
      const refused = await fetch(`${stack.base}/oauth/token`, form({ grant_type: "client_credentials", client_id: license.client_id, client_secret: key }));
      expect(refused.status).toBe(401);
    } finally {
      clock.offsetMs = 0;
    }
  });
});

/** identity.v1.resolve requests this stack's identity has answered ($SRV stats). */
async function identityResolves(): Promise<number> {
  let n = 0;
  for await (const st of await stack.nc.services.client().stats("identity")) {
    if (st.metadata?.instance !== stack.identity!.runtime.instance) continue;
    n += st.endpoints?.find((e) => e.subject === "identity.v1.resolve")?.num_requests ?? 0;
  }
  return n;
}

function form(fields: Record<string, string>): RequestInit {
  return { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() };
}
