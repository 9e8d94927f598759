import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deriveSecrets, SECRET_LABELS } from "../src/secrets.js";

/** RFC 5869 written out with HMAC, independently of node's hkdfSync: the derivation is the standard one. */
function rfc5869(ikm: string, salt: string, info: string): Buffer {
  const prk = createHmac("sha256", salt).update(ikm).digest();
  return createHmac("sha256", prk).update(Buffer.concat([Buffer.from(info), Buffer.from([1])])).digest();
}

describe("deriveSecrets", () => {
  const secret = "correct horse battery staple, thirty-two+ characters";

  it("derives 32-byte HKDF-SHA256 keys with distinct labels", () => {
    const s = deriveSecrets(secret);
    for (const [name, info] of Object.entries(SECRET_LABELS)) {
      const key = s[name as keyof typeof s];
      expect(key).toHaveLength(32);
      expect(Buffer.from(key).equals(rfc5869(secret, "board.identity.v1", info))).toBe(true);
    }
    const hex = [s.emailKey, s.nonceKey, s.keyEncryptionKey, s.consentKey].map((k) => Buffer.from(k).toString("hex"));
    expect(new Set(hex).size).toBe(4);
  });

  it("is deterministic (every replica agrees) and changes with the secret", () => {
    expect(deriveSecrets(secret)).toEqual(deriveSecrets(secret));
    expect(Buffer.from(deriveSecrets(`${secret}!`).emailKey).equals(Buffer.from(deriveSecrets(secret).emailKey))).toBe(false);
  });
});
