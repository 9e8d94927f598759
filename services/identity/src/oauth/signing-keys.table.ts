import type { Jwk } from "@board/proto";
import { jsonb, text, timestamp } from "drizzle-orm/pg-core";
import { identity } from "../db/identity-schema.js";

/**
 * The keys that sign access tokens, shared by every identity replica. A key is published
 * in the JWKS from its creation, signs from `signs_from` (creation + the publish lead, so
 * clients' JWKS caches know it first) and is retired when its successor starts signing; it
 * stays published until the last token it signed has expired.
 */
export const signingKeys = identity.table("signing_keys", {
  /** The RFC 7638 thumbprint of the public key. */
  kid: text("kid").primaryKey(),
  publicJwk: jsonb("public_jwk").$type<Jwk>().notNull(),
  /** The private JWK, AES-256-GCM under the key encryption key: base64 of iv | tag | ciphertext. */
  privateKeyEnc: text("private_key_enc").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  signsFrom: timestamp("signs_from", { withTimezone: true }).notNull(),
  /** The successor's signs_from; null while this is the newest key. */
  retiredAt: timestamp("retired_at", { withTimezone: true }),
});

export type SigningKeyRow = typeof signingKeys.$inferSelect;
