import { VERIFIED_LICENSE_CACHE_SECONDS } from "@board/proto";
import type { LicenseRow } from "../db/schema.js";
import { licenseVerifies } from "./period.js";

/** Licenses kept per replica (least recently used dropped first). */
const MAX_ENTRIES = 10_000;

/**
 * Licenses that verified, by key hash or id, so a burst of licensed reads costs identity one
 * query, not one each. Fresh enough, not exact: a revocation ends a license before its
 * period_end, so an entry is answered for at most `ttlMs` after it was read from the store
 * (VERIFIED_LICENSE_CACHE_SECONDS) and never past its period_end; the revocation announcement
 * drops a license's entries at once (`forget`). Refusals are never kept: a key unknown now
 * may be issued the next second.
 */
export class VerifiedLicenses {
  private readonly rows = new Map<string, { row: LicenseRow; untilMs: number }>();
  /** Licenses revoked lately, by id: a store read that began before the revocation must not be kept after it. */
  private readonly revoked = new Map<string, number>();

  constructor(private readonly ttlMs = VERIFIED_LICENSE_CACHE_SECONDS * 1000) {}

  get(key: string, now: Date): LicenseRow | undefined {
    const hit = this.rows.get(key);
    if (!hit) return undefined;
    this.rows.delete(key);
    if (now.getTime() >= hit.untilMs || !licenseVerifies(hit.row.periodEnd, now)) return undefined;
    this.rows.set(key, hit); // most recently used last
    return hit.row;
  }

  remember(key: string, row: LicenseRow, now: Date): void {
    if (row.revokedAt || !licenseVerifies(row.periodEnd, now)) return;
    const revokedUntil = this.revoked.get(row.id);
    if (revokedUntil !== undefined && now.getTime() < revokedUntil) return;
    this.rows.delete(key);
    this.rows.set(key, { row, untilMs: Math.min(now.getTime() + this.ttlMs, row.periodEnd.getTime()) });
    if (this.rows.size > MAX_ENTRIES) this.rows.delete(this.rows.keys().next().value as string);
  }

  /** Drops every entry of this license (a revocation), and keeps none of it for one lifetime more. */
  forget(licenseId: string, now: Date): void {
    for (const [key, hit] of this.rows) if (hit.row.id === licenseId) this.rows.delete(key);
    const nowMs = now.getTime();
    for (const [id, until] of this.revoked) if (until <= nowMs) this.revoked.delete(id);
    this.revoked.set(licenseId, nowMs + this.ttlMs);
  }
}
