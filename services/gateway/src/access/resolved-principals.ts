import { createHash } from "node:crypto";
import { RESOLVED_PRINCIPAL_CACHE_SECONDS, type Credentials, type OAuthResource, type Principal } from "@board/proto";

/** Credentials kept per gateway replica (least recently used dropped first). */
const MAX_ENTRIES = 10_000;

/**
 * License, bearer, free-key (X-Board-Key) and wallet sign-in principals identity has verified, kept a few
 * seconds so a burst of reads costs one bus round trip (and identity's database lookup) less.
 * Fresh enough, not exact: the operator can revoke a licence (a leaked key) before its period
 * end, and a free key is retired when its owner asks for a new one, so an entry is answered
 * for at most `ttlMs` (RESOLVED_PRINCIPAL_CACHE_SECONDS) and never past its `expires_at` (the
 * earlier of token expiry and period end); identity's announcements drop a revoked licence's
 * entries (`forgetLicense`) and a retired key's owner's (`forgetPrincipal`) at once. A free
 * key's reads are counted by metering whichever way it resolved. A SIGN-IN-WITH-X header is
 * checked by identity without any state (its nonce is our MAC over the challenge's own times,
 * its signature is the wallet's), so the same header gets the same answer until its session
 * ends: it is kept under a digest of the whole header (a changed byte is another entry), never
 * past the session's expiry. Refusals are never kept here. A cache, not a record: a restarted
 * gateway simply asks again.
 */
export class ResolvedPrincipals {
  private readonly entries = new Map<string, { principal: Principal; untilMs: number }>();
  /** Principal ids of licences revoked lately: an answer identity gave before the revocation is not kept after it. */
  private readonly revoked = new Map<string, number>();

  /** `now`: the clock identity answers by (tests run identity ahead of the wall clock). */
  constructor(
    private readonly now: () => Date = () => new Date(),
    private readonly ttlMs = RESOLVED_PRINCIPAL_CACHE_SECONDS * 1000,
  ) {}

  /**
   * The cache key of a credential set holding only a license key, only a bearer, only a board
   * key or only a sign-in; null: not kept. A bearer or a sign-in is kept per resource it was
   * verified for: one good for /mcp/live is not thereby good for the HTTP API.
   */
  static keyOf(creds: Credentials, resource: OAuthResource = "api"): string | null {
    if (creds.siwx !== undefined) {
      if (creds.board_key !== undefined || creds.license_key !== undefined || creds.bearer !== undefined) return null;
      // A digest, not the header: a sign-in header is a kilobyte, the digest 43 characters.
      const digest = createHash("sha256").update(creds.siwx).digest("base64url");
      return resource === "api" ? `siwx ${digest}` : `siwx@${resource} ${digest}`;
    }
    if (creds.board_key !== undefined) return creds.license_key === undefined && creds.bearer === undefined ? `key ${creds.board_key}` : null;
    if (creds.license_key !== undefined && creds.bearer === undefined) return `license ${creds.license_key}`;
    if (creds.bearer !== undefined && creds.license_key === undefined) return resource === "api" ? `bearer ${creds.bearer}` : `bearer@${resource} ${creds.bearer}`;
    return null;
  }

  get(key: string): Principal | undefined {
    const nowMs = this.now().getTime();
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    if (nowMs >= hit.untilMs) return undefined;
    this.entries.set(key, hit); // most recently used last
    return hit.principal;
  }

  remember(key: string, principal: Principal): void {
    const nowMs = this.now().getTime();
    const keyed = key.startsWith("key ");
    const signedIn = key.startsWith("siwx");
    // A free or wallet-tier key has no end of its own (it retires or idles out, told by identity);
    // a sign-in ends with its session (expires_at).
    if (signedIn) {
      if (principal.tier !== "wallet") return;
    } else if (keyed ? principal.tier !== "free_key" && principal.tier !== "wallet" : principal.tier !== "scanner_license" && principal.tier !== "live_license" && principal.tier !== "bearer") return;
    if (!keyed && principal.expires_at === null) return;
    const revokedUntil = this.revoked.get(principal.id);
    if (revokedUntil !== undefined && nowMs < revokedUntil) return;
    const untilMs = principal.expires_at === null ? nowMs + this.ttlMs : Math.min(Date.parse(principal.expires_at), nowMs + this.ttlMs);
    if (!(untilMs > nowMs)) return;
    this.entries.delete(key);
    this.entries.set(key, { principal, untilMs });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Drops every key and bearer of a revoked licence, and keeps none of it for one lifetime more. */
  forgetLicense(licenseId: string): void {
    this.forgetPrincipal(`license:${licenseId}`);
  }

  /** Drops every entry of a principal (a licence revoked, a key's owner given a new key), and keeps none of it for one lifetime more. */
  forgetPrincipal(id: string): void {
    for (const [key, hit] of this.entries) if (hit.principal.id === id) this.entries.delete(key);
    const nowMs = this.now().getTime();
    for (const [k, until] of this.revoked) if (until <= nowMs) this.revoked.delete(k);
    this.revoked.set(id, nowMs + this.ttlMs);
  }
}
