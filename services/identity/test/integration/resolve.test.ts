import { identityFreeKey, identityJwks, identityLicenseIssue, identityResolve, identitySignInChallenge, identityToken, type Credentials } from "@board/proto";
import { BusError, request } from "@board/service-kit";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestIdentity } from "./support.js";

// Sign-in headers carry real times: the clock starts real and only moves forward.
const t = new TestIdentity("real");

beforeAll(() => t.start({ PUBLIC_BASE_URL: "https://board.example/" }));
afterAll(() => t.stop());

const resolve = (credentials: Credentials) => request(t.nc, identityResolve, { credentials });
const license = (kind: "scanner" | "live_feed" = "live_feed") => request(t.nc, identityLicenseIssue, { kind, period: "monthly", holder: "resolve test" });
const token = (clientId: string, secret: string) =>
  request(t.nc, identityToken, { grant_type: "client_credentials", form_client_id: clientId, form_client_secret: secret });

async function bearerFor(clientId: string, secret: string): Promise<string> {
  const reply = await token(clientId, secret);
  if (!reply.ok) throw new Error(`${reply.error}: ${reply.error_description}`);
  return reply.token.access_token;
}

async function siwxHeader(): Promise<{ header: string; address: string }> {
  const account = privateKeyToAccount(generatePrivateKey());
  const c = await request(t.nc, identitySignInChallenge, { address: account.address, chain: "eip155:8453" });
  if (!c.message || !c.address || !c.type || !c.chainId) throw new Error("challenge without a message");
  const payload = { ...c.info, address: c.address, chainId: c.chainId, type: c.type, signature: await account.signMessage({ message: c.message }) };
  return { header: Buffer.from(JSON.stringify(payload)).toString("base64"), address: account.address };
}

function principal(reply: Awaited<ReturnType<typeof resolve>>) {
  if (!reply.ok) throw new Error(`${reply.code}: ${reply.message}`);
  return reply.principal;
}

describe("resolve: exactly one credential, the strongest present", () => {
  it("takes license key, then bearer, then sign-in, then board key", async () => {
    const lic = await license("live_feed");
    const bearer = await bearerFor(lic.license.client_id, lic.key);
    const { header: siwx, address } = await siwxHeader();
    const { key: boardKey } = await request(t.nc, identityFreeKey, { email: "precedence@example.com" });
    const all: Credentials = { license_key: lic.key, bearer, siwx, board_key: boardKey };

    expect(principal(await resolve(all))).toEqual({
      id: `license:${lic.license.license_id}`,
      tier: "live_license",
      license_kind: "live_feed",
      expires_at: lic.license.period_end,
    });
    const viaBearer = principal(await resolve({ bearer, siwx, board_key: boardKey }));
    expect(viaBearer).toMatchObject({ id: `license:${lic.license.license_id}`, tier: "bearer", license_kind: "live_feed" });
    const tokenExpiry = Date.parse(viaBearer.expires_at ?? "");
    expect(Math.abs(tokenExpiry - (t.clock.t + 3600_000))).toBeLessThan(2000);
    const viaSiwx = principal(await resolve({ siwx, board_key: boardKey }));
    expect(viaSiwx).toMatchObject({ tier: "wallet", license_kind: null });
    expect(viaSiwx.id.toLowerCase()).toContain(address.toLowerCase());
    expect(Date.parse(viaSiwx.expires_at ?? "")).toBeGreaterThan(t.clock.t);
    expect(principal(await resolve({ board_key: boardKey }))).toMatchObject({ tier: "free_key", expires_at: null });
  });

  it("never falls back: a bad stronger credential is the answer even beside a good weaker one", async () => {
    const lic = await license();
    const bearer = await bearerFor(lic.license.client_id, lic.key);
    const { header: siwx } = await siwxHeader();
    const { key: boardKey } = await request(t.nc, identityFreeKey, { email: "nofallback@example.com" });
    expect(await resolve({ license_key: `blk_${"C".repeat(43)}`, bearer, siwx, board_key: boardKey })).toMatchObject({ ok: false, code: "license_unknown" });
    expect(await resolve({ bearer: `${bearer.slice(0, -4)}AAAA`, siwx, board_key: boardKey })).toMatchObject({ ok: false, code: "token_invalid" });
    expect(await resolve({ bearer: "not.a.jwt", board_key: boardKey })).toMatchObject({ ok: false, code: "token_invalid" });
    expect(await resolve({ siwx: "bm90IGpzb24=", board_key: boardKey })).toMatchObject({ ok: false, code: "sign_in_invalid" });
  });

  it("an empty credential set is a bad request", async () => {
    const err = await resolve({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusError);
    expect((err as BusError).code).toBe("invalid_request");
  });
});

describe("the token endpoint authenticates license holders", () => {
  it("refuses another license's client id, a free key and an unknown secret as invalid_client", async () => {
    const a = await license();
    const b = await license();
    expect((await token(a.license.client_id, a.key)).ok).toBe(true);
    expect(await token(b.license.client_id, a.key)).toMatchObject({ ok: false, error: "invalid_client" });
    const { key: freeKey } = await request(t.nc, identityFreeKey, { email: "not-a-client@example.com" });
    expect(await token(a.license.client_id, freeKey)).toMatchObject({ ok: false, error: "invalid_client" });
    expect(await token(a.license.client_id, `blk_${"D".repeat(43)}`)).toMatchObject({ ok: false, error: "invalid_client" });
    const jwks = await request(t.nc, identityJwks, {});
    expect(jwks.keys.length).toBeGreaterThan(0);
  });
});

describe("round trips over the bus", () => {
  it("measures resolve for a free key and a license key", async () => {
    const { key: boardKey } = await request(t.nc, identityFreeKey, { email: "timing@example.com" });
    const lic = await license("scanner");
    const measure = async (credentials: Credentials) => {
      for (let i = 0; i < 20; i++) await resolve(credentials); // warm the pool and the JIT
      const ms: number[] = [];
      for (let i = 0; i < 300; i++) {
        const started = performance.now();
        expect((await resolve(credentials)).ok).toBe(true);
        ms.push(performance.now() - started);
      }
      ms.sort((x, y) => x - y);
      return { p50: ms[150] ?? NaN, p99: ms[297] ?? NaN, mean: ms.reduce((s, x) => s + x, 0) / ms.length };
    };
    const free = await measure({ board_key: boardKey });
    const lk = await measure({ license_key: lic.key });
    console.log(
      `resolve round trip (sequential, 300 each): free key p50 ${free.p50.toFixed(2)} ms, p99 ${free.p99.toFixed(2)} ms, mean ${free.mean.toFixed(2)} ms; ` +
        `license key p50 ${lk.p50.toFixed(2)} ms, p99 ${lk.p99.toFixed(2)} ms, mean ${lk.mean.toFixed(2)} ms`,
    );
    // Generous bounds: a lookup by unique index plus a bus hop, never tens of milliseconds.
    expect(free.p50).toBeLessThan(25);
    expect(lk.p50).toBeLessThan(25);
  });
});

describe("a bearer stops with its license", () => {
  it("a token from a license that lapses within the hour stops verifying when the license does", async () => {
    const lic = await license();
    t.clock.t = Date.parse(lic.license.period_end) - 10 * 60_000;
    const bearer = await bearerFor(lic.license.client_id, lic.key);
    expect(principal(await resolve({ bearer })).tier).toBe("bearer");
    t.advance(11 * 60_000);
    const refused = await resolve({ bearer });
    expect(refused).toMatchObject({ ok: false, code: "token_invalid" });
    if (!refused.ok) expect(refused.message).toContain("license behind this token");
    expect(await token(lic.license.client_id, lic.key)).toMatchObject({ ok: false, error: "invalid_client" });
  });
});
