import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hashSecretKey, newSecretKey, secretKindOf } from "../../src/keys/secret-key.js";

describe("secret keys", () => {
  it("are the prefix plus 32 random bytes in base64url", () => {
    for (const [kind, prefix] of [["free_key", "bfk_"], ["wallet", "bwk_"], ["license", "blk_"]] as const) {
      const key = newSecretKey(kind);
      expect(key).toMatch(new RegExp(`^${prefix}[A-Za-z0-9_-]{43}$`));
      expect(Buffer.from(key.slice(4), "base64url")).toHaveLength(32);
      expect(secretKindOf(key)).toBe(kind);
    }
    expect(newSecretKey("free_key")).not.toBe(newSecretKey("free_key"));
  });

  it("are stored as sha256 hex of the whole key", () => {
    const key = newSecretKey("free_key");
    expect(hashSecretKey(key)).toBe(createHash("sha256").update(key).digest("hex"));
    expect(hashSecretKey(key)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("tells nothing of ours from a misshapen key", () => {
    const body = "A".repeat(43);
    for (const k of ["", "bfk_", `bfk_${body}x`, `bfk_${"A".repeat(42)}=`, `xfk_${body}`, `BFK_${body}`, `bfk_${"A".repeat(42)}+`]) expect(secretKindOf(k)).toBeNull();
    expect(secretKindOf(`bfk_${body}`)).toBe("free_key");
  });
});
