import type { Credentials, OAuthResource, Principal } from "@board/proto";

/** Credentials kept per gateway replica (least recently used dropped first). */
const MAX_ENTRIES = 10_000;

/**
 * License and bearer principals identity has verified, kept until they lapse, so a licensed
 * read costs one bus round trip less. Exact, not merely fresh enough: nothing ends a license
 * before its paid period (a cancelled one works until period_end; renewal only moves it later;
 * identity keeps its own verified licenses on the same reasoning), and a bearer token is good
 * until its expiry; identity's `expires_at` is the earlier of the two. Past it, identity is
 * asked again (and finds a renewal). Refusals and every other tier are never kept: a free key
 * counts and can retire, a sign-in session is bound to its nonce. A cache, not a record: a
 * restarted gateway simply asks again.
 */
export class ResolvedPrincipals {
  private readonly entries = new Map<string, { principal: Principal; untilMs: number }>();

  /** `now`: the clock identity answers by (tests run identity ahead of the wall clock). */
  constructor(private readonly now: () => Date = () => new Date()) {}

  /**
   * The cache key of a credential set holding only a license key or only a bearer; null: not
   * kept. A bearer is kept per resource it was verified for: one good for /mcp/live is not
   * thereby good for the HTTP API.
   */
  static keyOf(creds: Credentials, resource: OAuthResource = "api"): string | null {
    if (creds.siwx !== undefined || creds.board_key !== undefined) return null;
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
    if (principal.tier !== "scanner_license" && principal.tier !== "live_license" && principal.tier !== "bearer") return;
    if (principal.expires_at === null) return;
    const untilMs = Date.parse(principal.expires_at);
    if (!(untilMs > nowMs)) return;
    this.entries.delete(key);
    this.entries.set(key, { principal, untilMs });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}
