import { ACCESS_TOKEN_SCOPE, ACCESS_TOKEN_SECONDS, oauthResourceUrl, type JwksReply, type LicenseKind, type OAuthResource, type TokenReply, type TokenRequest } from "@board/proto";
import type { Database, Logger } from "@board/service-kit";
import { issueAccessToken, UnknownKeyError, verifyAccessToken, type LicenseClaim } from "./access-token.js";
import {
  assertKeySize,
  importPrivateKey,
  importPublicKey,
  pendingSuccessor,
  publishedAt,
  removableAt,
  rotationState,
  signingKeyAt,
  successorDue,
  type JoseKey,
  type RotationPolicy,
} from "@board/signing-keys";
import { SigningKeyStore, type KeyDecision } from "./key-store.js";
import type { SigningKeyRow } from "./signing-keys.table.js";
import { authenticationFailed, readTokenRequest, scopeRefusal } from "./token-request.js";

export interface OAuthOptions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any identity schema: this module names its own table
  db: Database<any>;
  /** 32 bytes: private keys are stored encrypted with it, never in the clear. */
  keyEncryptionKey: Uint8Array;
  /** PUBLIC_BASE_URL without trailing slash. */
  issuer: string;
  /** The HTTP API's resource identifier (client credentials tokens): the same value as issuer. */
  audience: string;
  now: () => Date;
  /** A signing key's active life (default 30 days). */
  rotateAfterSeconds: number;
  /** A new key is in the JWKS this long before it signs (default 900); must exceed client JWKS caches. */
  publishLeadSeconds: number;
  log: Logger;
}

export interface LicenseClient {
  licenseId: string;
  kind: LicenseKind;
}

export type VerifyReply = { ok: true; licenseId: string; kind: LicenseKind; expiresAt: Date } | { ok: false; message: string };

/** An unknown kid reloads the keys (another replica may have rotated) at most this often. */
const RELOAD_MIN_INTERVAL_MS = 5_000;
/** The scheduled check: rotation, cleanup and reload. Far shorter than the publish lead. */
const MAX_CHECK_INTERVAL_MS = 60_000;

/**
 * OAuth 2.0 client credentials for license holders: the token endpoint, bearer
 * verification, and the signing keys behind them (created, rotated, published and
 * retired here, shared by every replica through Postgres).
 */
export class OAuth {
  private readonly store: SigningKeyStore;
  private readonly policy: RotationPolicy;
  private keys: SigningKeyRow[] = [];
  /** opts.now() in ms at the last load from the database. */
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | null = null;
  private readonly publicKeys = new Map<string, Promise<JoseKey>>();
  private readonly privateKeys = new Map<string, Promise<JoseKey>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: OAuthOptions) {
    assertKeySize(opts.keyEncryptionKey);
    if (!(opts.publishLeadSeconds > 0)) throw new Error("publishLeadSeconds must be positive");
    if (!(opts.rotateAfterSeconds > opts.publishLeadSeconds)) throw new Error("rotateAfterSeconds must exceed publishLeadSeconds");
    this.store = new SigningKeyStore(opts.db, opts.keyEncryptionKey);
    this.policy = { rotateAfterSeconds: opts.rotateAfterSeconds, publishLeadSeconds: opts.publishLeadSeconds };
  }

  /** Loads keys; creates the first (signing at once) if there is none; schedules rotation checks and refresh (unref'd timers). */
  async start(): Promise<void> {
    this.stop();
    const now = this.opts.now();
    const { created, rows } = await this.store.createIf((rows) => (rows.length === 0 ? { createdAt: now, signsFrom: now } : null));
    if (created) this.logCreated(created, "first signing key created");
    this.install(rows, now);
    // A restart after a long pause may find the key already due for rotation.
    await this.refresh();
    const every = Math.min(MAX_CHECK_INTERVAL_MS, Math.max(1_000, (this.opts.publishLeadSeconds * 1000) / 4));
    this.timer = setInterval(() => {
      this.refresh().catch((err: unknown) => this.opts.log.warn({ err: err instanceof Error ? err.message : String(err) }, "signing key check failed"));
    }, every);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * The scheduled work, run now: creates a successor when the signing key is due for
   * rotation, deletes keys whose tokens have all expired, and reloads the keys.
   */
  async refresh(): Promise<void> {
    const now = this.opts.now();
    if (successorDue(this.keys, now, this.policy)) {
      const { created } = await this.store.createIf((rows) => (successorDue(rows, now, this.policy) ? this.successorTimes(rows, now) : null));
      if (created) this.logCreated(created, "successor signing key published");
    }
    if (removableAt(this.keys, now, ACCESS_TOKEN_SECONDS).length > 0) {
      const deleted = await this.store.deleteRetiredBefore(new Date(now.getTime() - ACCESS_TOKEN_SECONDS * 1000));
      if (deleted > 0) this.opts.log.info({ deleted }, "expired signing keys deleted");
    }
    await this.reload(now);
  }

  /** POST /oauth/token. authenticate(clientId, secret) returns the license when the secret is that client's valid license key, else null. */
  async token(req: TokenRequest, authenticate: (clientId: string, clientSecret: string) => Promise<LicenseClient | null>): Promise<TokenReply> {
    const read = readTokenRequest(req);
    if (!read.ok) return read;
    const { clientId, clientSecret, basic } = read.client;
    const license = await authenticate(clientId, clientSecret);
    if (!license) return authenticationFailed(basic);
    // Scope after authentication: an unauthenticated caller learns nothing but that it failed.
    const badScope = scopeRefusal(req.scope);
    if (badScope) return badScope;

    const accessToken = await this.sign({ clientId, license: { id: license.licenseId, kind: license.kind }, audience: this.opts.audience });
    return { ok: true, token: { access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_SECONDS, scope: ACCESS_TOKEN_SCOPE } };
  }

  /** An access token from the current signing key, for any grant. */
  async sign(t: { clientId: string; subject?: string; license: LicenseClaim; audience: string | string[] }): Promise<string> {
    const now = this.opts.now();
    const key = signingKeyAt(this.keys, now);
    if (!key) throw new Error("no signing key loaded: OAuth.start() has not run");
    return issueAccessToken({ kid: key.kid, privateKey: await this.privateKey(key), issuer: this.opts.issuer, ...t, now });
  }

  /** Authorization: Bearer at a resource: the HTTP API unless told (a token must name the resource it is used at). */
  verify(token: string, resource: OAuthResource = "api"): Promise<VerifyReply> {
    const now = this.opts.now();
    return verifyAccessToken(token, {
      issuer: this.opts.issuer,
      audience: resource === "api" ? this.opts.audience : oauthResourceUrl(this.opts.issuer, resource),
      now,
      keyFor: (kid) => this.publicKey(kid, now),
    });
  }

  /** Where the signing keys' rotation stands now, as this replica last loaded them (for /metrics). */
  rotation(): ReturnType<typeof rotationState> {
    return rotationState(this.keys, this.opts.now(), this.policy);
  }

  /** Every key published: the signing key, a successor published ahead of signing, and predecessors until their last token expires. */
  async jwks(): Promise<JwksReply> {
    return { keys: publishedAt(this.keys, this.opts.now(), ACCESS_TOKEN_SECONDS).map((k) => k.publicJwk) };
  }

  /**
   * Starts a rotation now: publishes a successor that signs from now + publishLeadSeconds.
   * If a successor is already published and waiting, that one is the answer: it signs no
   * later than a new one would, and a second waiting key would never sign.
   */
  async rotate(): Promise<{ kid: string; signsFrom: Date }> {
    const now = this.opts.now();
    const { created, rows } = await this.store.createIf((rows) => (pendingSuccessor(rows, now) ? null : this.successorTimes(rows, now)));
    if (created) this.logCreated(created, "successor signing key published (rotation requested)");
    this.install(rows, now);
    const successor = created ?? pendingSuccessor(rows, now);
    if (!successor) throw new Error("rotation left no successor key");
    return { kid: successor.kid, signsFrom: successor.signsFrom };
  }

  /** The first key signs at once; a successor after the publish lead. */
  private successorTimes(rows: SigningKeyRow[], now: Date): KeyDecision {
    const signsFrom = rows.length === 0 ? now : new Date(now.getTime() + this.opts.publishLeadSeconds * 1000);
    return { createdAt: now, signsFrom };
  }

  /** The published key with this kid; an unknown kid reloads the keys first, at most every few seconds. */
  private async publicKey(kid: string, now: Date): Promise<JoseKey> {
    let row = publishedAt(this.keys, now, ACCESS_TOKEN_SECONDS).find((k) => k.kid === kid);
    if (!row) {
      const sinceLoad = now.getTime() - this.loadedAt;
      if (!(sinceLoad >= 0 && sinceLoad < RELOAD_MIN_INTERVAL_MS)) await this.reload(now);
      row = publishedAt(this.keys, now, ACCESS_TOKEN_SECONDS).find((k) => k.kid === kid);
    }
    if (!row) throw new UnknownKeyError("the token's signing key is not one of ours (see /oauth/jwks)");
    return cached(this.publicKeys, row.kid, () => importPublicKey(row.publicJwk));
  }

  private privateKey(row: SigningKeyRow): Promise<JoseKey> {
    return cached(this.privateKeys, row.kid, () => importPrivateKey(this.opts.keyEncryptionKey, row.kid, row.privateKeyEnc));
  }

  /** One load at a time: concurrent callers share it. */
  private reload(now: Date): Promise<void> {
    this.loading ??= this.store
      .all()
      .then((rows) => this.install(rows, now))
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  private install(rows: SigningKeyRow[], now: Date): void {
    this.keys = rows;
    this.loadedAt = now.getTime();
    const kids = new Set(rows.map((r) => r.kid));
    for (const cache of [this.publicKeys, this.privateKeys]) {
      for (const kid of cache.keys()) if (!kids.has(kid)) cache.delete(kid);
    }
  }

  private logCreated(row: SigningKeyRow, msg: string): void {
    this.opts.log.info({ kid: row.kid, signsFrom: row.signsFrom.toISOString() }, msg);
  }
}

/** Imports a key once; a failed import is forgotten so the next use tries again. */
function cached(cache: Map<string, Promise<JoseKey>>, kid: string, load: () => Promise<JoseKey>): Promise<JoseKey> {
  let p = cache.get(kid);
  if (!p) {
    p = load();
    cache.set(kid, p);
    p.catch(() => cache.delete(kid));
  }
  return p;
}
