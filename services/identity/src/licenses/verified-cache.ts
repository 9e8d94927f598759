import type { LicenseRow } from "../db/schema.js";
import { licenseVerifies } from "./period.js";

/** Licenses kept per replica (least recently used dropped first). */
const MAX_ENTRIES = 10_000;

/**
 * Licenses that verified, by key hash or id, so a licensed read costs identity no query.
 * Exact, not merely fresh enough: a license has no operation that ends it before period_end
 * (a cancelled license works until then; renewal only moves period_end later; nothing deletes
 * one), so a stored row that verified keeps verifying until its own period_end, which the
 * cache checks on every use; past it, the store is asked again (a renewal is found there).
 * Refusals are never kept: a key unknown now may be issued the next second.
 */
export class VerifiedLicenses {
  private readonly rows = new Map<string, LicenseRow>();

  get(key: string, now: Date): LicenseRow | undefined {
    const row = this.rows.get(key);
    if (!row) return undefined;
    this.rows.delete(key);
    if (!licenseVerifies(row.periodEnd, now)) return undefined;
    this.rows.set(key, row); // most recently used last
    return row;
  }

  remember(key: string, row: LicenseRow, now: Date): void {
    if (!licenseVerifies(row.periodEnd, now)) return;
    this.rows.delete(key);
    this.rows.set(key, row);
    if (this.rows.size > MAX_ENTRIES) this.rows.delete(this.rows.keys().next().value as string);
  }
}
