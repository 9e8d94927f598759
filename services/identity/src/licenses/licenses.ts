import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type {
  LicenseIssueReply,
  LicenseIssueRequest,
  LicenseKind,
  LicenseListReply,
  LicenseRecord,
  LicenseReply,
  LicenseRef,
  LicenseRevokeRequest,
} from "@board/proto";
import { BusError } from "@board/service-kit";
import type { LicenseRow } from "../db/schema.js";
import { hashSecretKey, newSecretKey, secretKindOf } from "../keys/secret-key.js";
import { addPeriod, licenseState, licenseVerifies } from "./period.js";
import type { LicenseStore } from "./store.js";
import { VerifiedLicenses } from "./verified-cache.js";

export type LicenseCheck =
  | { ok: true; license: LicenseRow }
  | { ok: false; code: "license_unknown" | "license_lapsed" | "license_revoked"; message: string };

const UNKNOWN = "X-License-Key is not a license of this service: check the key; licenses are sold monthly or yearly.";
const REVOKED = "This license was revoked and no longer verifies; ask the seller for a new license.";

/** The OAuth client id of a license: public, so 8 random bytes in hex only need to be unique. */
export const newClientId = (): string => `lic_${randomBytes(8).toString("hex")}`;

export function licenseRecord(row: LicenseRow, now: Date): LicenseRecord {
  return {
    license_id: row.id,
    kind: row.kind,
    client_id: row.clientId,
    holder: row.holder,
    period: row.period,
    issued_at: row.issuedAt.toISOString(),
    period_end: row.periodEnd.toISOString(),
    cancelled_at: row.cancelledAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    revoked_reason: row.revokedReason,
    state: licenseState(row, now),
  };
}

/** Issuing, listing, cancelling, renewing and revoking licenses (the operator's CLI), and checking a license key. */
export class Licenses {
  private readonly byKeyHash = new VerifiedLicenses();
  private readonly byId = new VerifiedLicenses();

  constructor(
    private readonly store: LicenseStore,
    private readonly now: () => Date,
  ) {}

  /** The key is in this reply and nowhere else: only its hash is stored. */
  async issue(req: LicenseIssueRequest): Promise<LicenseIssueReply> {
    const now = this.now();
    const key = newSecretKey("license");
    const row = await this.store.insert({
      kind: req.kind,
      clientId: newClientId(),
      keyHash: hashSecretKey(key),
      holder: req.holder,
      period: req.period,
      issuedAt: now,
      periodEnd: addPeriod(now, req.period),
    });
    return { license: licenseRecord(row, now), key };
  }

  async list(): Promise<LicenseListReply> {
    const now = this.now();
    return { licenses: (await this.store.all()).map((r) => licenseRecord(r, now)) };
  }

  /** A cancelled license works until the end of its paid period; cancelling twice changes nothing. */
  async cancel(ref: LicenseRef): Promise<LicenseReply> {
    const now = this.now();
    const row = await this.store.cancel(ref.license_id, now);
    if (!row) throw new BusError("not_found", 404);
    return { license: licenseRecord(row, now) };
  }

  async renew(ref: LicenseRef): Promise<LicenseReply> {
    const now = this.now();
    const out = await this.store.renew(ref.license_id, now);
    if (!out.ok) throw out.reason === "not_found" ? new BusError("not_found", 404) : new BusError("invalid_request", 400);
    return { license: licenseRecord(out.license, now) };
  }

  /**
   * Stops a license now (a leaked key): stored with its refresh families, and dropped from
   * this replica's memory; the caller announces it to the other replicas.
   */
  async revoke(req: LicenseRevokeRequest): Promise<{ reply: LicenseReply; revokedAt: Date }> {
    const now = this.now();
    const row = await this.store.revoke(req.license_id, req.reason, now);
    if (!row) throw new BusError("not_found", 404);
    this.forget(row.id);
    return { reply: { license: licenseRecord(row, now) }, revokedAt: row.revokedAt ?? now };
  }

  /** Drops what this replica keeps of a license (its revocation, here or announced by another replica). */
  forget(licenseId: string): void {
    const now = this.now();
    this.byKeyHash.forget(licenseId, now);
    this.byId.forget(licenseId, now);
  }

  /** X-License-Key: known, not revoked and inside its paid period. */
  async checkKey(key: string): Promise<LicenseCheck> {
    if (secretKindOf(key) !== "license") return { ok: false, code: "license_unknown", message: UNKNOWN };
    const hash = hashSecretKey(key);
    const now = this.now();
    const known = this.byKeyHash.get(hash, now);
    if (known) return { ok: true, license: known };
    const row = await this.store.byKeyHash(hash);
    if (!row) return { ok: false, code: "license_unknown", message: UNKNOWN };
    if (row.revokedAt) return { ok: false, code: "license_revoked", message: REVOKED };
    this.byKeyHash.remember(hash, row, now);
    if (!licenseVerifies(row.periodEnd, now))
      return {
        ok: false,
        code: "license_lapsed",
        message: `This license's paid period ended at ${row.periodEnd.toISOString()}; renew it to read again.`,
      };
    return { ok: true, license: row };
  }

  /** The license behind a bearer token or a refresh token, if it still verifies (not revoked, inside its period). */
  async verifyingById(id: string): Promise<LicenseRow | null> {
    const now = this.now();
    const known = this.byId.get(id, now);
    if (known) return known;
    const row = await this.store.byId(id);
    if (row) this.byId.remember(id, row, now);
    return row && !row.revokedAt && licenseVerifies(row.periodEnd, now) ? row : null;
  }

  /**
   * The OAuth client authentication: the secret is a license key (found by its hash), the
   * client id is that license's (compared in constant time), and the license verifies now.
   */
  async authenticate(clientId: string, clientSecret: string): Promise<{ licenseId: string; kind: LicenseKind } | null> {
    const check = await this.checkKey(clientSecret);
    if (!check.ok) return null;
    if (!timingSafeEqual(sha256(clientId), sha256(check.license.clientId))) return null;
    return { licenseId: check.license.id, kind: check.license.kind };
  }
}

/** Equal-length digests, so the comparison takes the same time whatever the lengths. */
const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest();
