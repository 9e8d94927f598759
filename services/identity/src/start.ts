import { fileURLToPath } from "node:url";
import {
  identityAuthorize,
  identityConsent,
  identityFreeKey,
  identityJwks,
  identityLicenseCancel,
  identityLicenseIssue,
  identityLicenseList,
  identityLicenseRenew,
  identityLicenseRevoke,
  identityRegister,
  identityResolve,
  identitySignInChallenge,
  identitySignInVerify,
  identityToken,
} from "@board/proto";
import { bind, gaugeKeyRotation, startRuntime, type Runtime } from "@board/service-kit";
import pkg from "../package.json" with { type: "json" };
import * as schema from "./db/schema.js";
import type { IdentityEnv } from "./env.js";
import { BoardKeys } from "./keys/board-keys.js";
import { announceKeyRetired } from "./keys/retirements.js";
import { BoardKeyStore } from "./keys/store.js";
import { Licenses } from "./licenses/licenses.js";
import { announceRevocation, followRevocations } from "./licenses/revocations.js";
import { LicenseStore } from "./licenses/store.js";
import { AuthorizationEndpoint } from "./oauth/authorization.js";
import { ClientRegistry } from "./oauth/client-registry.js";
import { CodeGrants } from "./oauth/code-grant.js";
import { GrantStore } from "./oauth/grant-store.js";
import { OAuth } from "./oauth/index.js";
import { answerToken } from "./oauth/token-endpoint.js";
import { resolveCredentials } from "./resolve.js";
import { deriveSecrets } from "./secrets.js";
import { SignIn } from "./sign-in/index.js";

const SWEEP_INTERVAL_MS = 10 * 60_000;

export interface IdentityOptions {
  /** The clock of keys, licenses, sign-in sessions and tokens (tests move it). */
  now?: () => Date;
}

export interface IdentityService {
  readonly runtime: Runtime<typeof schema>;
  readonly oauth: OAuth;
  stop(): Promise<void>;
}

/** Free keys, wallet sign-in, license keys and OAuth, answered on identity.v1.*. */
export async function startIdentity(env: IdentityEnv, opts: IdentityOptions = {}): Promise<IdentityService> {
  const now = opts.now ?? (() => new Date());
  const secrets = deriveSecrets(env.IDENTITY_SECRET);
  const rt = await startRuntime({
    service: "identity",
    version: pkg.version,
    description: "Free keys, wallet sign-in, license keys and OAuth",
    env,
    database: { migrationsFolder: fileURLToPath(new URL("../drizzle", import.meta.url)), schema },
  });
  try {
    const db = rt.database!.db;
    const publicBaseUrl = new URL(env.PUBLIC_BASE_URL);
    // The issuer is the origin clients know, written without a trailing slash (RFC 8414 issuer form).
    const issuer = env.PUBLIC_BASE_URL.replace(/\/+$/, "");
    const signIn = new SignIn({ nonceKey: secrets.nonceKey, publicBaseUrl, now });
    const oauth = new OAuth({
      db,
      keyEncryptionKey: secrets.keyEncryptionKey,
      issuer,
      audience: issuer,
      now,
      rotateAfterSeconds: env.OAUTH_ROTATE_AFTER_DAYS * 86_400,
      publishLeadSeconds: env.OAUTH_PUBLISH_LEAD_SECONDS,
      log: rt.log,
    });
    await oauth.start();
    rt.lifecycle.onStop("oauth", () => oauth.stop());
    gaugeKeyRotation(rt.metrics, "access_token", () => oauth.rotation());
    const licenses = new Licenses(new LicenseStore(db), now);
    const unfollow = followRevocations(rt.bus.nc, rt.log, licenses);
    rt.lifecycle.onStop("license revocations", unfollow);
    // A retired key's owner is announced, so the gateways stop the old key at once.
    const boardKeys = new BoardKeys(new BoardKeyStore(db), secrets.emailKey, now, (principalId) => announceKeyRetired(rt.bus.nc, rt.log, principalId));
    const resolveDeps = { licenses, boardKeys, oauth, signIn };
    const clients = new ClientRegistry(db, now);
    const grants = new GrantStore(db);
    const authorization = new AuthorizationEndpoint({ clients, grants, licenses, consentKey: secrets.consentKey, issuer, now });
    const codeGrants = new CodeGrants({ clients, grants, licenses, signer: oauth, issuer, now, log: rt.log });
    const tokenDeps = { oauth, codeGrants, authenticateLicense: (clientId: string, secret: string) => licenses.authenticate(clientId, secret) };
    // Spent codes and refresh tokens are forgotten once nothing can present them; every replica sweeps, the deletes are idempotent.
    const sweep = setInterval(() => {
      grants.sweep(now()).catch((err: unknown) => rt.log.warn({ err: err instanceof Error ? err.message : String(err) }, "OAuth grant sweep failed"));
    }, SWEEP_INTERVAL_MS);
    sweep.unref();
    rt.lifecycle.onStop("oauth-grant-sweep", () => clearInterval(sweep));

    await rt.serve([
      bind(identityResolve, (req) => resolveCredentials(resolveDeps, req)),
      bind(identityFreeKey, (req) => boardKeys.issueFree(req)),
      bind(identitySignInChallenge, async (req) => signIn.challenge(req)),
      bind(identitySignInVerify, async (req) => {
        const result = await signIn.verify(req.payload);
        return result.ok ? boardKeys.issueWallet(result) : ({ ok: false, code: result.code, message: result.message } as const);
      }),
      bind(identityToken, (req) => answerToken(tokenDeps, req)),
      bind(identityAuthorize, (req) => authorization.authorize(req)),
      bind(identityConsent, (req) => authorization.consent(req)),
      bind(identityRegister, (req) => clients.register(req.metadata)),
      bind(identityJwks, () => oauth.jwks()),
      bind(identityLicenseIssue, (req) => licenses.issue(req)),
      bind(identityLicenseList, () => licenses.list()),
      bind(identityLicenseCancel, (req) => licenses.cancel(req)),
      bind(identityLicenseRenew, (req) => licenses.renew(req)),
      bind(identityLicenseRevoke, async (req) => {
        const { reply, revokedAt } = await licenses.revoke(req);
        announceRevocation(rt.bus.nc, rt.log, { license_id: reply.license.license_id, revoked_at: revokedAt.toISOString() });
        rt.log.info({ license_id: reply.license.license_id }, "license revoked");
        return reply;
      }),
    ]);
    return { runtime: rt, oauth, stop: () => rt.stop() };
  } catch (err) {
    await rt.stop();
    throw err;
  }
}
