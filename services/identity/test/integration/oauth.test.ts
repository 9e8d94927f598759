import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AccessToken, JwksReply, TokenReply, type TokenRequest } from "@board/proto";
import { openDatabase, type Logger, type OpenDatabase } from "@board/service-kit";
import { freshDatabase, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { base64url, createLocalJWKSet, decodeJwt, decodeProtectedHeader, exportSPKI, jwtVerify, SignJWT, UnsecuredJWT } from "jose";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { issueAccessToken } from "../../src/oauth/access-token.js";
import { OAuth, type LicenseClient, type OAuthOptions } from "../../src/oauth/index.js";
import { generateSigningKey, importPrivateKey, importPublicKey } from "@board/signing-keys";
import { signingKeys } from "../../src/oauth/signing-keys.table.js";

const MIGRATIONS = fileURLToPath(new URL("../../drizzle", import.meta.url));
const ISSUER = "https://board.example";
const LEAD = 900;
const ROTATE = 30 * 86400;
const T0 = new Date("2025-03-01T00:00:00Z").getTime();
const kek = randomBytes(32);

/** Log lines as written, to prove no private key reaches them. */
const logged: string[] = [];
const log = Object.fromEntries(
  ["trace", "debug", "info", "warn", "error", "fatal"].map((level) => [level, (...args: unknown[]) => void logged.push(JSON.stringify(args))]),
) as unknown as Logger;

/** The identity database as the service opens it: its own migrations create the signing keys table. */
const open = (url: string | undefined, dataDir: string) => openDatabase({ service: "identity", url, dataDir, log, migrationsFolder: MIGRATIONS });

let clock = T0;
const at = (seconds: number) => (clock = T0 + seconds * 1000);
let testDb: TestDatabase;
let database: OpenDatabase<Record<string, never>>;
let dataDir: string;
const running: OAuth[] = [];

function oauth(o: Partial<OAuthOptions> = {}): OAuth {
  const instance = new OAuth({
    db: database.db,
    keyEncryptionKey: kek,
    issuer: ISSUER,
    audience: ISSUER,
    now: () => new Date(clock),
    rotateAfterSeconds: ROTATE,
    publishLeadSeconds: LEAD,
    log,
    ...o,
  });
  running.push(instance);
  return instance;
}
async function started(o: Partial<OAuthOptions> = {}): Promise<OAuth> {
  const instance = oauth(o);
  await instance.start();
  return instance;
}

const CLIENT = "cl_live_1";
const SECRET = "lk_live_0123456789abcdef";
const LICENSE: LicenseClient = { licenseId: randomUUID(), kind: "live_feed" };
let authenticated = 0;
/** Stands in for the license store: one client, its key compared in constant time. */
const authenticate = async (clientId: string, secret: string): Promise<LicenseClient | null> => {
  authenticated++;
  const a = Buffer.from(secret);
  const b = Buffer.from(SECRET);
  return clientId === CLIENT && a.length === b.length && timingSafeEqual(a, b) ? LICENSE : null;
};
const grant = { grant_type: "client_credentials" };
const viaBasic: TokenRequest = { ...grant, basic_client_id: CLIENT, basic_client_secret: SECRET };
const viaPost: TokenRequest = { ...grant, form_client_id: CLIENT, form_client_secret: SECRET };

async function accessToken(o: OAuth, req: TokenRequest = viaBasic): Promise<string> {
  const reply = TokenReply.parse(await o.token(req, authenticate));
  if (!reply.ok) throw new Error(`token refused: ${reply.error}`);
  return reply.token.access_token;
}
const rows = () => database.db.select().from(signingKeys);
const kids = async (o: OAuth) => (await o.jwks()).keys.map((k) => k.kid);

beforeAll(async () => {
  testDb = await freshDatabase(testInfra().databaseUrl);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "identity-oauth-"));
  database = await open(testDb.url, dataDir);
});
afterAll(async () => {
  await database.close();
  await testDb.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
beforeEach(async () => {
  at(0);
  logged.length = 0;
  await database.db.delete(signingKeys);
});
afterEach(() => {
  for (const o of running.splice(0)) o.stop();
  // No log line ever carries a private key, encrypted or not.
  const all = logged.join("\n");
  expect(all).not.toMatch(/"d":/);
  expect(all).not.toMatch(/private_?key_?enc/i);
});

describe("signing keys at start", () => {
  it("the first start creates one key that signs at once; later starts create none", async () => {
    const a = await started();
    expect(await rows()).toHaveLength(1);
    const [row] = await rows();
    expect(row?.signsFrom.getTime()).toBe(T0);
    expect(row?.retiredAt).toBeNull();
    expect(JwksReply.parse(await a.jwks())).toEqual({ keys: [row?.publicJwk] });

    await Promise.all([started(), started(), started()]);
    expect(await rows()).toHaveLength(1);
  });

  it("concurrent first starts on an empty table create exactly one key", async () => {
    await Promise.all(Array.from({ length: 6 }, () => started()));
    expect(await rows()).toHaveLength(1);
  });

  it("the private key is stored encrypted: not the JWK in the clear, and only our key encryption key opens it", async () => {
    await started();
    const [row] = await rows();
    if (!row) throw new Error("no key");
    const stored = row.privateKeyEnc;
    const decoded = Buffer.from(stored, "base64").toString("latin1");
    expect(stored).not.toMatch(/"d"|"kty"|P-256/);
    expect(decoded).not.toMatch(/"d"|"kty"|P-256/);
    expect(JSON.stringify(row.publicJwk)).not.toContain('"d"');
    await expect(importPrivateKey(randomBytes(32), row.kid, stored)).rejects.toThrow(/does not decrypt/);
    await expect(importPrivateKey(kek, row.kid, stored)).resolves.toBeDefined();
  });

  it("a wrong key encryption key cannot sign (the token endpoint fails, it does not answer with a bad token)", async () => {
    await started();
    const wrong = await started({ keyEncryptionKey: randomBytes(32) });
    await expect(wrong.token(viaBasic, authenticate)).rejects.toThrow(/does not decrypt/);
  });
});

describe("POST /oauth/token", () => {
  it("issues an RFC 9068 ES256 token by client_secret_basic and by client_secret_post", async () => {
    const o = await started();
    const [row] = await rows();
    for (const req of [viaBasic, viaPost, { ...viaBasic, scope: "board:live" }]) {
      const reply = TokenReply.parse(await o.token(req, authenticate));
      if (!reply.ok) throw new Error(reply.error);
      expect(AccessToken.parse(reply.token)).toEqual({ access_token: expect.any(String), token_type: "Bearer", expires_in: 3600, scope: "board:live" });
      const token = reply.token.access_token;
      expect(decodeProtectedHeader(token)).toEqual({ alg: "ES256", kid: row?.kid, typ: "at+jwt" });
      const iat = Math.floor(T0 / 1000);
      expect(decodeJwt(token)).toEqual({
        iss: ISSUER,
        aud: ISSUER,
        sub: CLIENT,
        client_id: CLIENT,
        iat,
        exp: iat + 3600,
        jti: expect.any(String),
        scope: "board:live",
        lic: { id: LICENSE.licenseId, kind: "live_feed" },
      });
      // As a client would check it: against the published JWKS, with jose's own set.
      const { payload } = await jwtVerify(token, createLocalJWKSet(await o.jwks()), {
        issuer: ISSUER,
        audience: ISSUER,
        algorithms: ["ES256"],
        typ: "at+jwt",
        currentDate: new Date(clock),
      });
      expect(payload.sub).toBe(CLIENT);
    }
  });

  it("refuses as RFC 6749 5.2 says, and asks the license store only when the request is well formed", async () => {
    const o = await started();
    const refusal = async (req: TokenRequest) => {
      const reply = TokenReply.parse(await o.token(req, authenticate));
      if (reply.ok) throw new Error("issued");
      expect(reply.error_description).not.toContain(SECRET);
      return { status: reply.status, error: reply.error, basic: reply.basic };
    };
    authenticated = 0;
    expect(await refusal({ basic_client_id: CLIENT, basic_client_secret: SECRET })).toEqual({ status: 400, error: "invalid_request", basic: false });
    expect(await refusal({ ...viaBasic, grant_type: "password" })).toEqual({ status: 400, error: "unsupported_grant_type", basic: false });
    expect(await refusal({ ...viaBasic, form_client_id: CLIENT, form_client_secret: SECRET })).toEqual({ status: 400, error: "invalid_request", basic: false });
    expect(await refusal({ ...grant })).toEqual({ status: 401, error: "invalid_client", basic: false });
    expect(await refusal({ ...viaPost, malformed: "the body is not application/x-www-form-urlencoded" })).toEqual({
      status: 400,
      error: "invalid_request",
      basic: false,
    });
    expect(authenticated).toBe(0);

    expect(await refusal({ ...viaBasic, basic_client_secret: "lk_live_wrong" })).toEqual({ status: 401, error: "invalid_client", basic: true });
    expect(await refusal({ ...viaPost, form_client_secret: "lk_live_wrong" })).toEqual({ status: 401, error: "invalid_client", basic: false });
    expect(await refusal({ ...viaBasic, basic_client_id: "cl_unknown" })).toEqual({ status: 401, error: "invalid_client", basic: true });
    expect(await refusal({ ...viaBasic, scope: "board:admin" })).toEqual({ status: 400, error: "invalid_scope", basic: false });
    // an unauthenticated caller is told only that authentication failed, whatever scope it asked for
    expect(await refusal({ ...viaBasic, basic_client_secret: "lk_live_wrong", scope: "board:admin" })).toEqual({ status: 401, error: "invalid_client", basic: true });
  });
});

describe("verifying a bearer", () => {
  it("accepts our token until its expiry and gives its license", async () => {
    const o = await started();
    const token = await accessToken(o);
    expect(await o.verify(token)).toEqual({ ok: true, licenseId: LICENSE.licenseId, kind: "live_feed", expiresAt: new Date(T0 + 3600_000) });
    at(3599);
    expect((await o.verify(token)).ok).toBe(true);
    at(3601);
    expect(await o.verify(token)).toEqual({ ok: false, message: expect.stringMatching(/expired/) });
  });

  it("refuses alg none, HS256 keyed with the public key, another audience or issuer, an unknown kid and a tampered signature", async () => {
    const o = await started();
    const [row] = await rows();
    if (!row) throw new Error("no key");
    const token = await accessToken(o);
    const claims = decodeJwt(token);

    const none = new UnsecuredJWT(claims).encode();
    const noneWithKid = `${base64url.encode(JSON.stringify({ alg: "none", kid: row.kid, typ: "at+jwt" }))}.${none.split(".")[1]}.`;
    for (const t of [none, noneWithKid]) expect(await o.verify(t)).toEqual({ ok: false, message: "the token's algorithm is not ES256" });

    const pem = await exportSPKI(await importPublicKey(row.publicJwk));
    for (const secret of [pem, JSON.stringify(row.publicJwk)]) {
      const hs = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: row.kid, typ: "at+jwt" }).sign(new TextEncoder().encode(secret));
      expect(await o.verify(hs)).toEqual({ ok: false, message: "the token's algorithm is not ES256" });
    }

    const elsewhereAud = await started({ audience: "https://other.example" });
    expect(await o.verify(await accessToken(elsewhereAud))).toEqual({ ok: false, message: "the token is not for this resource: ask for a token with this resource (RFC 8707 resource parameter)" });
    const elsewhereIss = await started({ issuer: "https://other.example" });
    expect(await o.verify(await accessToken(elsewhereIss))).toEqual({ ok: false, message: "the token was not issued by this service" });

    // a well-formed token from a key that was never published
    const stranger = await generateSigningKey(kek);
    const strangers = await issueAccessToken({
      kid: stranger.kid,
      privateKey: await importPrivateKey(kek, stranger.kid, stranger.privateKeyEnc),
      issuer: ISSUER,
      audience: ISSUER,
      clientId: CLIENT,
      license: { id: LICENSE.licenseId, kind: "live_feed" },
      now: new Date(clock),
    });
    expect(await o.verify(strangers)).toEqual({ ok: false, message: expect.stringMatching(/not one of ours/) });
    // ...and the same key's signature under our kid
    const swapped = await issueAccessToken({
      kid: row.kid,
      privateKey: await importPrivateKey(kek, stranger.kid, stranger.privateKeyEnc),
      issuer: ISSUER,
      audience: ISSUER,
      clientId: CLIENT,
      license: { id: LICENSE.licenseId, kind: "live_feed" },
      now: new Date(clock),
    });
    expect(await o.verify(swapped)).toEqual({ ok: false, message: "the token's signature does not verify" });

    const [th, tp, ts] = token.split(".") as [string, string, string];
    const sig = base64url.decode(ts);
    sig[10] = (sig[10] ?? 0) ^ 0x80;
    expect(await o.verify(`${th}.${tp}.${base64url.encode(sig)}`)).toEqual({ ok: false, message: "the token's signature does not verify" });
    const upgraded = base64url.encode(JSON.stringify({ ...claims, lic: { id: randomUUID(), kind: "live_feed" } }));
    expect(await o.verify(`${th}.${upgraded}.${ts}`)).toEqual({ ok: false, message: "the token's signature does not verify" });
  });
});

describe("rotation", () => {
  it("rotate() publishes a successor ahead of signing; the old key signs until then and is published until its last token expires", async () => {
    const o = await started();
    const [first] = await rows();
    if (!first) throw new Error("no key");

    at(100);
    const successor = await o.rotate();
    expect(successor.signsFrom.getTime()).toBe(T0 + (100 + LEAD) * 1000);
    expect(await kids(o)).toEqual([successor.kid, first.kid]);
    // asked again while it waits: the same successor, no third key
    expect(await o.rotate()).toEqual(successor);
    expect(await rows()).toHaveLength(2);

    at(100 + LEAD - 1);
    const lastOld = await accessToken(o);
    expect(decodeProtectedHeader(lastOld).kid).toBe(first.kid);
    at(100 + LEAD);
    const firstNew = await accessToken(o);
    expect(decodeProtectedHeader(firstNew).kid).toBe(successor.kid);
    expect((await o.verify(lastOld)).ok).toBe(true);
    expect((await o.verify(firstNew)).ok).toBe(true);
    const retired = (await rows()).find((r) => r.kid === first.kid);
    expect(retired?.retiredAt?.getTime()).toBe(successor.signsFrom.getTime());

    // The old key's last token was signed just before retirement: it stays published until that expires.
    at(100 + LEAD + 3598);
    expect((await o.verify(lastOld)).ok).toBe(true);
    at(100 + LEAD + 3599);
    expect(await kids(o)).toEqual([successor.kid, first.kid]);
    at(100 + LEAD + 3600);
    expect(await kids(o)).toEqual([successor.kid]);
    expect((await o.verify(lastOld)).ok).toBe(false);
    await o.refresh();
    expect((await rows()).map((r) => r.kid)).toEqual([successor.kid]);
  });

  it("the scheduled check publishes a successor at rotateAfter - lead, once across replicas", async () => {
    const replicas = await Promise.all(Array.from({ length: 5 }, () => started()));
    at(ROTATE - LEAD - 1);
    await Promise.all(replicas.map((r) => r.refresh()));
    expect(await rows()).toHaveLength(1);
    at(ROTATE - LEAD);
    await Promise.all(replicas.map((r) => r.refresh()));
    const all = await rows();
    expect(all).toHaveLength(2);
    const successor = all.find((r) => r.retiredAt === null);
    expect(successor?.signsFrom.getTime()).toBe(T0 + ROTATE * 1000);
    for (const r of replicas) expect(await kids(r)).toHaveLength(2);
    // Each replica switches at the same instant.
    at(ROTATE);
    for (const r of replicas) expect(decodeProtectedHeader(await accessToken(r)).kid).toBe(successor?.kid);
  });

  it("a replica verifies a token signed by a key another replica created (reload on an unknown kid, at most every few seconds)", async () => {
    const a = await started();
    const b = await started(); // loads its keys now, at t=0
    const { kid, signsFrom } = await a.rotate();
    const row = (await rows()).find((r) => r.kid === kid);
    if (!row) throw new Error("no successor");
    const signWithSuccessor = async () =>
      issueAccessToken({
        kid,
        privateKey: await importPrivateKey(kek, kid, row.privateKeyEnc),
        issuer: ISSUER,
        audience: ISSUER,
        clientId: CLIENT,
        license: { id: LICENSE.licenseId, kind: "live_feed" },
        now: new Date(clock),
      });

    // b has not seen the successor; one second after its last load it does not go back to the database.
    at(1);
    expect((await b.verify(await signWithSuccessor())).ok).toBe(false);
    at(5);
    expect(await b.verify(await signWithSuccessor())).toMatchObject({ ok: true, licenseId: LICENSE.licenseId });

    // And the usual way: once the successor signs, a's tokens verify at b.
    const c = await started();
    at((signsFrom.getTime() - T0) / 1000);
    const token = await accessToken(a);
    expect(decodeProtectedHeader(token).kid).toBe(kid);
    expect((await c.verify(token)).ok).toBe(true);
    expect((await b.verify(token)).ok).toBe(true);
  });
});

describe("embedded PGlite (a service without DATABASE_URL)", () => {
  it("creates, rotates, issues and verifies the same way", async () => {
    const lite = await open(undefined, dataDir);
    try {
      const o = new OAuth({ db: lite.db, keyEncryptionKey: kek, issuer: ISSUER, audience: ISSUER, now: () => new Date(clock), rotateAfterSeconds: ROTATE, publishLeadSeconds: LEAD, log });
      await o.start();
      const token = await accessToken(o);
      expect((await o.verify(token)).ok).toBe(true);
      const { kid } = await o.rotate();
      expect(await kids(o)).toContain(kid);
      expect((await o.jwks()).keys).toHaveLength(2);
      o.stop();
    } finally {
      await lite.close();
    }
  });
});
