import { createHash, randomBytes } from "node:crypto";

/**
 * The bearer secrets identity hands out, told apart by prefix: a free key (X-Board-Key),
 * a wallet-tier key (X-Board-Key) and a license key (X-License-Key, and the OAuth client
 * secret). Each is the prefix plus 32 random bytes in base64url, shown once and stored
 * only as its sha256.
 */
export const SECRET_PREFIX = { free_key: "bfk_", wallet: "bwk_", license: "blk_" } as const;
export type SecretKind = keyof typeof SECRET_PREFIX;

const SECRET_BYTES = 32;
/** base64url of 32 bytes, unpadded: 43 characters. */
const BODY = /^[A-Za-z0-9_-]{43}$/;

export function newSecretKey(kind: SecretKind): string {
  return SECRET_PREFIX[kind] + randomBytes(SECRET_BYTES).toString("base64url");
}

/** The stored form of a secret key: sha256 hex. The key is high-entropy, so no salt or stretching is needed. */
export function hashSecretKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Which kind of secret this looks like, or null when it is not shaped like any of ours (no lookup needed then). */
export function secretKindOf(key: string): SecretKind | null {
  for (const [kind, prefix] of Object.entries(SECRET_PREFIX) as [SecretKind, string][]) {
    if (key.startsWith(prefix) && BODY.test(key.slice(prefix.length))) return kind;
  }
  return null;
}
