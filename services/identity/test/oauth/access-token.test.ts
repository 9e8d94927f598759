import { randomBytes } from "node:crypto";
import { base64url, decodeJwt, decodeProtectedHeader, exportSPKI, SignJWT, UnsecuredJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { issueAccessToken, UnknownKeyError, verifyAccessToken, type IssueInput, type VerifyInput } from "../../src/oauth/access-token.js";
import { generateSigningKey, importPrivateKey, importPublicKey, type JoseKey, type NewSigningKey } from "@board/signing-keys";

const kek = randomBytes(32);
const issuer = "https://board.example";
const now = new Date("2025-06-01T12:00:00Z");
let key: NewSigningKey;
let privateKey: JoseKey;
let publicKey: JoseKey;
let other: NewSigningKey;
let otherPrivate: JoseKey;

beforeAll(async () => {
  key = await generateSigningKey(kek);
  privateKey = await importPrivateKey(kek, key.kid, key.privateKeyEnc);
  publicKey = await importPublicKey(key.publicJwk);
  other = await generateSigningKey(kek);
  otherPrivate = await importPrivateKey(kek, other.kid, other.privateKeyEnc);
});

const issue = (o: Partial<IssueInput> = {}) =>
  issueAccessToken({
    kid: key.kid,
    privateKey,
    issuer,
    audience: issuer,
    clientId: "client-1",
    license: { id: "lic-1", kind: "live_feed" },
    now,
    ...o,
  });

const keyFor = async (kid: string) => {
  if (kid === key.kid) return publicKey;
  throw new UnknownKeyError("the token's signing key is not one of ours");
};
const verify = (token: string, o: Partial<VerifyInput> = {}) => verifyAccessToken(token, { issuer, audience: issuer, keyFor, now, ...o });

/** A token whose header and payload are the given ones, signed by our key (to test claim checks past the signature). */
const signRaw = (payload: Record<string, unknown>, header: Record<string, unknown> = {}) =>
  new SignJWT(payload).setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt", ...header }).sign(privateKey);
const iat = Math.floor(now.getTime() / 1000);
const goodClaims = { iss: issuer, aud: issuer, sub: "client-1", client_id: "client-1", iat, exp: iat + 3600, jti: "j1", scope: "board:live", lic: { id: "lic-1", kind: "scanner" } };

describe("signing keys", () => {
  it("kid is the RFC 7638 thumbprint and the public JWK carries no private part", async () => {
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key.publicJwk).toEqual({ kty: "EC", crv: "P-256", x: expect.any(String), y: expect.any(String), kid: key.kid, alg: "ES256", use: "sig" });
    expect(JSON.stringify(key.publicJwk)).not.toContain('"d"');
    expect(key.privateKeyEnc).not.toContain('"d"');
    expect(other.kid).not.toBe(key.kid);
  });
});

describe("access tokens (RFC 9068)", () => {
  it("are ES256 with kid and typ at+jwt, and carry the claims of the contract", async () => {
    const token = await issue();
    expect(decodeProtectedHeader(token)).toEqual({ alg: "ES256", kid: key.kid, typ: "at+jwt" });
    const claims = decodeJwt(token);
    expect(claims).toEqual({
      iss: issuer,
      aud: issuer,
      sub: "client-1",
      client_id: "client-1",
      iat,
      exp: iat + 3600,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      scope: "board:live",
      lic: { id: "lic-1", kind: "live_feed" },
    });
    expect(decodeJwt(await issue()).jti).not.toBe(claims.jti);
  });

  it("verify: a good token gives its license and expiry", async () => {
    expect(await verify(await issue())).toEqual({ ok: true, licenseId: "lic-1", kind: "live_feed", expiresAt: new Date((iat + 3600) * 1000) });
    // valid up to the last second
    expect((await verify(await issue(), { now: new Date(now.getTime() + 3599_000) })).ok).toBe(true);
  });

  it("refuses alg none", async () => {
    const token = new UnsecuredJWT(goodClaims).encode();
    expect(await verify(token)).toEqual({ ok: false, message: "the token's algorithm is not ES256" });
    const withKid = `${base64url.encode(JSON.stringify({ alg: "none", kid: key.kid, typ: "at+jwt" }))}.${token.split(".")[1]}.`;
    expect((await verify(withKid)).ok).toBe(false);
  });

  it("refuses HS256 keyed with the public key (PEM and JWK bytes)", async () => {
    for (const secret of [new TextEncoder().encode(await exportSPKI(publicKey)), new TextEncoder().encode(JSON.stringify(key.publicJwk))]) {
      const token = await new SignJWT(goodClaims).setProtectedHeader({ alg: "HS256", kid: key.kid, typ: "at+jwt" }).sign(secret);
      expect(await verify(token)).toEqual({ ok: false, message: "the token's algorithm is not ES256" });
    }
  });

  it("refuses an expired token (one second past exp)", async () => {
    const r = await verify(await issue(), { now: new Date(now.getTime() + 3601_000) });
    expect(r).toEqual({ ok: false, message: expect.stringMatching(/expired/) });
  });

  it("refuses another audience and another issuer", async () => {
    expect(await verify(await issue({ audience: "https://elsewhere.example" }))).toEqual({ ok: false, message: "the token is not for this resource: ask for a token with this resource (RFC 8707 resource parameter)" });
    expect(await verify(await issue({ issuer: "https://elsewhere.example" }))).toEqual({ ok: false, message: "the token was not issued by this service" });
  });

  it("refuses a token signed by a key not published, and one naming no kid", async () => {
    const r = await verify(await issue({ kid: other.kid, privateKey: otherPrivate }));
    expect(r).toEqual({ ok: false, message: expect.stringMatching(/signing key is not one of ours/) });
    const noKid = await new SignJWT(goodClaims).setProtectedHeader({ alg: "ES256", typ: "at+jwt" }).sign(privateKey);
    expect(await verify(noKid)).toEqual({ ok: false, message: expect.stringMatching(/names no signing key/) });
  });

  it("refuses a token signed by another key under our kid, and a tampered signature or payload", async () => {
    expect(await verify(await issue({ privateKey: otherPrivate }))).toEqual({ ok: false, message: "the token's signature does not verify" });
    const [h, p, s] = (await issue()).split(".") as [string, string, string];
    const sig = base64url.decode(s);
    sig[5] = (sig[5] ?? 0) ^ 0x01;
    expect((await verify(`${h}.${p}.${base64url.encode(sig)}`)).ok).toBe(false);
    const forged = base64url.encode(JSON.stringify({ ...decodeJwt(`${h}.${p}.${s}`), lic: { id: "lic-1", kind: "live_feed" }, sub: "someone-else" }));
    expect(await verify(`${h}.${forged}.${s}`)).toEqual({ ok: false, message: "the token's signature does not verify" });
  });

  it("refuses a missing or malformed license claim, another scope, and another typ", async () => {
    const { lic: _lic, ...noLic } = goodClaims;
    expect(await verify(await signRaw(noLic))).toEqual({ ok: false, message: "the token's lic claim is missing or invalid" });
    expect(await verify(await signRaw({ ...goodClaims, lic: { id: "lic-1", kind: "gold" } }))).toEqual({
      ok: false,
      message: "the token carries no valid license claim",
    });
    expect((await verify(await signRaw({ ...goodClaims, scope: "board:admin" }))).ok).toBe(false);
    expect(await verify(await signRaw(goodClaims, { typ: "JWT" }))).toEqual({ ok: false, message: "the token is not an access token (typ at+jwt)" });
    expect((await verify(await signRaw(goodClaims))).ok).toBe(true);
  });

  it("refuses garbage", async () => {
    for (const t of ["", "abc", "a.b.c", "a.b"]) expect((await verify(t)).ok).toBe(false);
  });
});
