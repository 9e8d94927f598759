import { createHmac } from "node:crypto";

/** The one form of an address we compare: trimmed and lowercased (the same mailbox posted twice is the same owner). */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/**
 * What identity keeps of an email: HMAC-SHA256 under the email key (derived from
 * IDENTITY_SECRET), in hex. Keyed, so a leaked table cannot be reversed by hashing guesses
 * without the secret; deterministic, so posting the same email again finds its key.
 */
export function emailDigest(emailKey: Uint8Array, email: string): string {
  return createHmac("sha256", emailKey).update(normalizeEmail(email), "utf8").digest("hex");
}
