import type { Database } from "@board/service-kit";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { licenses, refreshFamilies, type LicenseRow } from "../db/schema.js";
import type * as schema from "../db/schema.js";
import { renewedPeriodEnd } from "./period.js";

export type NewLicense = Omit<typeof licenses.$inferInsert, "id" | "cancelledAt" | "revokedAt" | "revokedReason">;

export type RenewOutcome = { ok: true; license: LicenseRow } | { ok: false; reason: "not_found" | "cancelled" | "revoked" };

/** The licenses table: the record every replica's short-lived cache (VerifiedLicenses) is read from. */
export class LicenseStore {
  constructor(private readonly db: Database<typeof schema>) {}

  async insert(l: NewLicense): Promise<LicenseRow> {
    const [row] = await this.db.insert(licenses).values(l).returning();
    if (!row) throw new Error("license insert returned no row");
    return row;
  }

  all(): Promise<LicenseRow[]> {
    return this.db.select().from(licenses).orderBy(asc(licenses.issuedAt), asc(licenses.id));
  }

  async byId(id: string): Promise<LicenseRow | null> {
    const [row] = await this.db.select().from(licenses).where(eq(licenses.id, id)).limit(1);
    return row ?? null;
  }

  /** The license whose key hashes to this: a unique index lookup, so no comparison of secrets in our code. */
  async byKeyHash(keyHash: string): Promise<LicenseRow | null> {
    const [row] = await this.db.select().from(licenses).where(eq(licenses.keyHash, keyHash)).limit(1);
    return row ?? null;
  }

  /** Idempotent: the first cancellation's time stays; period_end is never touched. */
  async cancel(id: string, now: Date): Promise<LicenseRow | null> {
    const [row] = await this.db
      .update(licenses)
      .set({ cancelledAt: sql`coalesce(${licenses.cancelledAt}, ${now.toISOString()}::timestamptz)` })
      .where(eq(licenses.id, id))
      .returning();
    return row ?? null;
  }

  /**
   * Revokes the license and, in the same transaction, every OAuth refresh family of it: its
   * refresh tokens stop with the key whichever replica is asked. Idempotent: the first
   * revocation's time and reason stay.
   */
  revoke(id: string, reason: string, now: Date): Promise<LicenseRow | null> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(licenses)
        .set({
          revokedAt: sql`coalesce(${licenses.revokedAt}, ${now.toISOString()}::timestamptz)`,
          revokedReason: sql`coalesce(${licenses.revokedReason}, ${reason})`,
        })
        .where(eq(licenses.id, id))
        .returning();
      if (!row) return null;
      await tx
        .update(refreshFamilies)
        .set({ revokedAt: now })
        .where(and(eq(refreshFamilies.licenseId, id), isNull(refreshFamilies.revokedAt)));
      return row;
    });
  }

  /**
   * One more period from max(period_end, now), under a row lock so two renewals at once add
   * two periods rather than one. A cancelled or revoked license is not renewed.
   */
  renew(id: string, now: Date): Promise<RenewOutcome> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.select().from(licenses).where(eq(licenses.id, id)).for("update");
      if (!row) return { ok: false, reason: "not_found" } as const;
      if (row.revokedAt) return { ok: false, reason: "revoked" } as const;
      if (row.cancelledAt) return { ok: false, reason: "cancelled" } as const;
      const [renewed] = await tx
        .update(licenses)
        .set({ periodEnd: renewedPeriodEnd(row.periodEnd, row.period, now) })
        .where(eq(licenses.id, id))
        .returning();
      if (!renewed) throw new Error("renewal updated no row");
      return { ok: true, license: renewed } as const;
    });
  }
}
