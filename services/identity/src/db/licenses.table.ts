import { sql } from "drizzle-orm";
import { text, timestamp, uuid } from "drizzle-orm/pg-core";
import { identity } from "./identity-schema.js";

export const licenseKind = identity.enum("license_kind", ["scanner", "live_feed"]);
export const licensePeriod = identity.enum("license_period", ["monthly", "yearly"]);

/**
 * Licenses sold outside the service and issued by an operator. The key (X-License-Key, also
 * the OAuth client secret) is kept only as its sha256; client_id is the OAuth client id.
 * A license verifies while now < period_end; cancelling keeps period_end (it works until
 * the end of its paid period) and only stops renewals. Revoking (a leaked key) stops it at
 * once and for good; revoked_reason is the operator's note of why.
 */
export const licenses = identity.table("licenses", {
  id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
  kind: licenseKind("kind").notNull(),
  clientId: text("client_id").notNull().unique(),
  keyHash: text("key_hash").notNull().unique(),
  /** Free text for the operator (an order reference); never an email. */
  holder: text("holder").notNull(),
  period: licensePeriod("period").notNull(),
  issuedAt: timestamp("issued_at", { withTimezone: true }).notNull(),
  periodEnd: timestamp("period_end", { withTimezone: true }).notNull(),
  cancelledAt: timestamp("cancelled_at", { withTimezone: true }),
  revokedAt: timestamp("revoked_at", { withTimezone: true }),
  revokedReason: text("revoked_reason"),
});

export type LicenseRow = typeof licenses.$inferSelect;
