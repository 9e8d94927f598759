import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A signing key's private half at rest: AES-256-GCM under the service's key encryption
 * key, stored as base64 of iv | tag | ciphertext. The kid is bound as associated data, so
 * a ciphertext copied onto another key's row does not decrypt.
 */
export function encryptPrivateKey(keyEncryptionKey: Uint8Array, kid: string, plaintext: string): string {
  assertKeySize(keyEncryptionKey);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyEncryptionKey, iv);
  cipher.setAAD(Buffer.from(kid, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64");
}

/** Throws when the key encryption key is not the one that encrypted it, or the row was altered. */
export function decryptPrivateKey(keyEncryptionKey: Uint8Array, kid: string, stored: string): string {
  assertKeySize(keyEncryptionKey);
  const bytes = Buffer.from(stored, "base64");
  if (bytes.length <= IV_BYTES + TAG_BYTES) throw new Error(`signing key ${kid}: stored private key is truncated`);
  const decipher = createDecipheriv("aes-256-gcm", keyEncryptionKey, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(kid, "utf8"));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    // The cipher's own message says nothing useful; this one says what to check.
    throw new Error(`signing key ${kid}: private key does not decrypt (wrong key encryption key, or the row was altered)`);
  }
}

export function assertKeySize(keyEncryptionKey: Uint8Array): void {
  if (keyEncryptionKey.length !== 32) throw new Error(`the key encryption key must be 32 bytes, not ${keyEncryptionKey.length}`);
}
