import { REFUSED_CREDENTIAL_SECONDS, type CredentialRefusalCode, type Credentials, type OAuthResource } from "@board/proto";

/** Refusals kept per gateway replica (least recently used dropped first). */
const MAX_ENTRIES = 10_000;

/**
 * Refusals that cannot turn into a grant: a key or licence identity does not know, a token
 * that does not verify. A lapsed licence (renewed any moment) and sign-in (a signature and a
 * nonce, never a lookup by value) are not kept.
 */
const KEPT: ReadonlySet<CredentialRefusalCode> = new Set(["key_unknown", "license_unknown", "token_invalid"]);

export type Refusal = { code: CredentialRefusalCode; message: string };

/**
 * Credentials identity refused as unknown or invalid, refused again by this replica for
 * REFUSED_CREDENTIAL_SECONDS without asking identity (and its database) again, so a client
 * repeating a wrong key costs one lookup per half minute, not one per request. Only what a
 * client could not have been sold meanwhile is kept: keys and licences are random values
 * issued once, a token that failed to verify stays unverifiable. A cache, not a record.
 */
export class RefusedCredentials {
  private readonly entries = new Map<string, { refusal: Refusal; untilMs: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = REFUSED_CREDENTIAL_SECONDS * 1000,
  ) {}

  /** The key of a credential set holding exactly one free key, licence or bearer; null: not kept. */
  static keyOf(creds: Credentials, resource: OAuthResource = "api"): string | null {
    const fields = Object.keys(creds).filter((k) => creds[k as keyof Credentials] !== undefined);
    if (fields.length !== 1) return null;
    if (creds.board_key !== undefined) return `key ${creds.board_key}`;
    if (creds.license_key !== undefined) return `license ${creds.license_key}`;
    if (creds.bearer !== undefined) return `bearer@${resource} ${creds.bearer}`;
    return null;
  }

  get(key: string): Refusal | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (this.now() >= hit.untilMs) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.refusal;
  }

  remember(key: string, refusal: Refusal): void {
    if (!KEPT.has(refusal.code)) return;
    this.entries.delete(key);
    this.entries.set(key, { refusal, untilMs: this.now() + this.ttlMs });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
}
