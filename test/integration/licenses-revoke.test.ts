import { createHash, randomBytes } from "node:crypto";
import {
  identityLicenseIssue,
  identityLicenseList,
  identityLicenseRevoke,
  LICENSE_REVOCATION_BOUND_SECONDS,
  type LicenseIssueReply,
} from "@board/proto";
import { request } from "@board/service-kit";
import { connect, type NatsConnection } from "nats";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayEnv } from "../../services/gateway/src/env.js";
import { startGateway, type GatewayService } from "../../services/gateway/src/start.js";
import { IdentityEnv } from "../../services/identity/src/env.js";
import { startIdentity } from "../../services/identity/src/start.js";
import { freePort } from "@board/service-kit/testing";
import { Stack } from "./harness.js";
import { completeConsent, registerClient } from "./sign-in.js";

// A leaked licence is revoked by the operator: its key, its bearers (client credentials and
// the code flow's) and its refresh tokens are refused within LICENSE_REVOCATION_BOUND_SECONDS
// on two gateway replicas whose caches are warm, in front of two identity replicas; another
// licence keeps working.
const BOUND_MS = LICENSE_REVOCATION_BOUND_SECONDS * 1000;
/** Well under any cache lifetime: what "at once" allows on a loaded machine. */
const ANNOUNCED_MS = 3000;
const REDIRECT = "http://127.0.0.1:53683/callback";
const stack = new Stack();
let second: GatewayService;
let secondIdentity: Awaited<ReturnType<typeof startIdentity>>;
let operator: NatsConnection;
let gateways: string[] = [];

beforeAll(async () => {
  await stack.start({ metering: { BURST_CAPACITY: "100000", BURST_PER_SECOND: "100000" } });
  await stack.startBoard();
  await stack.publishTwoDays({ live: true });
  await stack.untilServing();
  // A second replica of each: the revocation must reach every replica's cache, not only the one that stored it.
  secondIdentity = await startIdentity(
    IdentityEnv.parse({ ...stack.busEnv("identity"), DATABASE_URL: stack.databaseUrl, HEALTH_PORT: 0, LOG_LEVEL: "warn", IDENTITY_SECRET: stack.identitySecret, PUBLIC_BASE_URL: stack.base }),
  );
  const port = await freePort();
  second = await startGateway(GatewayEnv.parse({ ...stack.busEnv("gateway"), PORT: port, HOST: "127.0.0.1", HEALTH_PORT: 0, LOG_LEVEL: "warn", BUS_TIMEOUT_MS: 2000, PUBLIC_BASE_URL: stack.base }));
  gateways = [stack.base, `http://127.0.0.1:${second.port}`];
  // The operator's own credential: revoke is in its grant alone.
  operator = await connect(stack.busOptions("operator"));
}, 60_000);

afterAll(async () => {
  await operator?.close();
  await second?.stop();
  await secondIdentity?.stop();
  await stack.stop();
});

const issue = (holder: string): Promise<LicenseIssueReply> => request(operator, identityLicenseIssue, { kind: "live_feed", period: "yearly", holder }, { timeoutMs: 5000 });

const read = (base: string, headers: Record<string, string>, path = "/api/board/regime") => fetch(`${base}${path}`, { headers });

async function form(fields: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${stack.base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A bearer from client credentials: the licence's client id and key. */
async function clientCredentials(l: LicenseIssueReply) {
  return form({ grant_type: "client_credentials", client_id: l.license.client_id, client_secret: l.key });
}

/** The authorization code flow for a public client: the holder signs in with the key; a bearer and a refresh token come back. */
async function codeFlow(key: string): Promise<{ clientId: string; access: string; refresh: string }> {
  const reg = await registerClient(stack.base, { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] });
  expect(reg.status).toBe(201);
  const clientId = reg.body["client_id"] as string;
  const verifier = randomBytes(32).toString("base64url");
  const url = new URL(`${stack.base}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "s",
  }))
    url.searchParams.set(k, v);
  const consent = await completeConsent(url, key);
  expect(consent.status, consent.page).toBe(302);
  const code = new URL(consent.location!).searchParams.get("code")!;
  const tokens = await form({ grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return { clientId, access: tokens.body["access_token"] as string, refresh: tokens.body["refresh_token"] as string };
}

const errorCode = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

/** Polls `check` until it holds and returns how long that took from `since`; fails past the bound. */
async function withinBound(since: number, check: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await check()) return Date.now() - since;
    if (Date.now() - since > BOUND_MS + 2000) throw new Error(`not refused within ${LICENSE_REVOCATION_BOUND_SECONDS} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("revoking a leaked licence", () => {
  it(`stops its key, its bearers and its refresh tokens on every replica within ${LICENSE_REVOCATION_BOUND_SECONDS} s; another licence keeps working`, async () => {
    const leaked = await issue("leaked");
    const kept = await issue("kept");
    const cc = await clientCredentials(leaked);
    expect(cc.status).toBe(200);
    const bearer = cc.body["access_token"] as string;
    const signedIn = await codeFlow(leaked.key);
    // Each credential works on both gateways, read twice, so every cache (gateways and identities) holds it.
    for (const base of gateways) {
      const credentials: Record<string, string>[] = [{ "x-license-key": leaked.key }, { authorization: `Bearer ${bearer}` }, { authorization: `Bearer ${signedIn.access}` }, { "x-license-key": kept.key }];
      for (const headers of credentials) {
        for (let i = 0; i < 2; i++) {
          const res = await read(base, headers);
          expect(res.status, `${base} ${Object.keys(headers)[0]}`).toBe(200);
          await res.body?.cancel();
        }
      }
    }

    const revoked = await request(operator, identityLicenseRevoke, { license_id: leaked.license.license_id, reason: "key posted in a public repository" }, { timeoutMs: 5000 });
    const at = Date.now();
    expect(revoked.license).toMatchObject({ state: "revoked", revoked_reason: "key posted in a public repository" });
    expect(revoked.license.revoked_at).toBeTruthy();

    const keyRefused = async (base: string) => {
      const res = await read(base, { "x-license-key": leaked.key });
      if (res.status !== 403) {
        await res.body?.cancel();
        return false;
      }
      expect(await errorCode(res)).toBe("license_revoked");
      return true;
    };
    const bearerRefused = (token: string) => async (base: string) => {
      const res = await read(base, { authorization: `Bearer ${token}` });
      if (res.status !== 401) {
        await res.body?.cancel();
        return false;
      }
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect(await errorCode(res)).toBe("token_invalid");
      return true;
    };
    for (const base of gateways) {
      for (const [what, refused] of [
        ["key", keyRefused],
        ["client credentials bearer", bearerRefused(bearer)],
        ["code flow bearer", bearerRefused(signedIn.access)],
      ] as const) {
        const took = await withinBound(at, () => refused(base));
        expect(took, `${what} at ${base}`).toBeLessThanOrEqual(BOUND_MS);
        // The announcement drops the warm entries at once, long before their lifetime would.
        expect(took, `${what} at ${base}`).toBeLessThan(ANNOUNCED_MS);
      }
    }
    const refresh = await form({ grant_type: "refresh_token", client_id: signedIn.clientId, refresh_token: signedIn.refresh });
    expect(refresh).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    // No new bearer from the key either (RFC 6749 5.2: the client secret no longer authenticates).
    expect(await clientCredentials(leaked)).toMatchObject({ status: 401, body: { error: "invalid_client" } });
    expect(Date.now() - at).toBeLessThanOrEqual(BOUND_MS);

    for (const base of gateways) {
      const res = await read(base, { "x-license-key": kept.key });
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
    const list = await request(operator, identityLicenseList, {}, { timeoutMs: 5000 });
    expect(list.licenses.find((l) => l.license_id === leaked.license.license_id)).toMatchObject({
      state: "revoked",
      revoked_at: revoked.license.revoked_at,
      revoked_reason: "key posted in a public repository",
    });
    expect(list.licenses.find((l) => l.license_id === kept.license.license_id)).toMatchObject({ state: "active", revoked_at: null, revoked_reason: null });

    // Revoking again changes nothing: the first time and reason stay.
    const again = await request(operator, identityLicenseRevoke, { license_id: leaked.license.license_id, reason: "second thoughts" }, { timeoutMs: 5000 });
    expect(again.license).toMatchObject({ revoked_at: revoked.license.revoked_at, revoked_reason: "key posted in a public repository" });
  }, 60_000);

  it("only the operator may revoke: the gateway's credential is refused by the bus", async () => {
    const l = await issue("not by the gateway");
    const gateway = await connect(stack.busOptions("gateway"));
    try {
      await expect(request(gateway, identityLicenseRevoke, { license_id: l.license.license_id, reason: "x" }, { timeoutMs: 1500 })).rejects.toMatchObject({ code: "upstream_timeout" });
    } finally {
      await gateway.close();
    }
    const res = await read(stack.base, { "x-license-key": l.key });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it(`a revocation whose announcement every replica missed still stops within ${LICENSE_REVOCATION_BOUND_SECONDS} s (the caches' lifetimes)`, async () => {
    const l = await issue("announcement lost");
    for (const base of gateways) {
      const res = await read(base, { "x-license-key": l.key });
      expect(res.status).toBe(200);
      await res.body?.cancel();
    }
    // Stored without a word on the bus: what a replica that missed the announcement sees.
    const db = new pg.Client({ connectionString: stack.db.url });
    await db.connect();
    try {
      await db.query("update identity.licenses set revoked_at = now(), revoked_reason = 'test: no announcement' where id = $1", [l.license.license_id]);
    } finally {
      await db.end();
    }
    const at = Date.now();
    for (const base of gateways) {
      const took = await withinBound(at, async () => {
        const res = await read(base, { "x-license-key": l.key });
        await res.body?.cancel();
        return res.status === 403;
      });
      expect(took, base).toBeLessThanOrEqual(BOUND_MS);
    }
  }, 60_000);
});
