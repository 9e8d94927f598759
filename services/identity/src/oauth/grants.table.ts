import { sql } from "drizzle-orm";
import { index, jsonb, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { OAuthResource } from "@board/proto";
import { identity } from "../db/identity-schema.js";
import { licenses } from "../db/licenses.table.js";
import { oauthClients } from "./clients.table.js";

/*
 * What a grant was given, on the sign-in's family and on each code. Two objects, not one, so
 * each table keeps its column order (and its CREATE TABLE): a code's redirect URI and PKCE
 * challenge sit between them.
 */
/** Who: the client and the licence. */
const grantedTo = {
  clientId: text("client_id")
    .notNull()
    .references(() => oauthClients.clientId, { onDelete: "cascade" }),
  licenseId: uuid("license_id")
    .notNull()
    .references(() => licenses.id, { onDelete: "cascade" }),
};

/** What for: the resources and the scope. */
const grantedAccess = {
  resources: jsonb("resources").$type<OAuthResource[]>().notNull(),
  scope: text("scope").notNull(),
};

/** A code or a refresh token is good until expires_at, and once: used_at marks that once. */
const singleUse = {
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true }),
};

/**
 * The tokens of one sign-in: every refresh token rotated from the first one an authorization
 * code bought. Revoking the family (a refresh token presented twice, a code redeemed twice)
 * stops every refresh token in it.
 */
export const refreshFamilies = identity.table("oauth_refresh_families", {
  id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
  ...grantedTo,
  ...grantedAccess,
  createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  revokedAt: timestamp("revoked_at", { withTimezone: true }),
});

/** Authorization codes, kept only as their sha256: single use, a minute long, bound to client, redirect URI and PKCE challenge. */
export const authorizationCodes = identity.table(
  "oauth_authorization_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    ...grantedTo,
    redirectUri: text("redirect_uri").notNull(),
    /** S256 only: base64url(sha256(verifier)). */
    codeChallenge: text("code_challenge").notNull(),
    ...grantedAccess,
    ...singleUse,
    /** The tokens it bought, revoked if the code comes again (RFC 6749 4.1.2). */
    familyId: uuid("family_id").references(() => refreshFamilies.id, { onDelete: "set null" }),
  },
  (t) => [index("oauth_authorization_codes_expires_at").on(t.expiresAt)],
);

/** Refresh tokens, kept only as their sha256: each good once; presenting a used one revokes its family. */
export const refreshTokens = identity.table(
  "oauth_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    familyId: uuid("family_id")
      .notNull()
      .references(() => refreshFamilies.id, { onDelete: "cascade" }),
    issuedAt: timestamp("issued_at", { withTimezone: true }).notNull(),
    ...singleUse,
  },
  (t) => [index("oauth_refresh_tokens_family").on(t.familyId), index("oauth_refresh_tokens_expires_at").on(t.expiresAt)],
);

export type AuthorizationCodeRow = typeof authorizationCodes.$inferSelect;
export type RefreshFamilyRow = typeof refreshFamilies.$inferSelect;
export type RefreshTokenRow = typeof refreshTokens.$inferSelect;
