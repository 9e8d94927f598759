import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptPrivateKey, encryptPrivateKey } from "../src/key-encryption.js";

const kek = randomBytes(32);
const secret = JSON.stringify({ kty: "EC", crv: "P-256", d: "private-part", x: "x", y: "y" });

describe("private keys at rest (AES-256-GCM)", () => {
  it("round-trips, and the stored text holds neither the plaintext nor its base64", () => {
    const stored = encryptPrivateKey(kek, "kid-1", secret);
    expect(decryptPrivateKey(kek, "kid-1", stored)).toBe(secret);
    expect(stored).not.toContain("private-part");
    expect(Buffer.from(stored, "base64").toString("utf8")).not.toContain("private-part");
    // iv (12) | tag (16) | ciphertext (as long as the plaintext)
    expect(Buffer.from(stored, "base64")).toHaveLength(12 + 16 + Buffer.byteLength(secret));
  });

  it("uses a fresh IV each time", () => {
    const a = Buffer.from(encryptPrivateKey(kek, "kid-1", secret), "base64");
    const b = Buffer.from(encryptPrivateKey(kek, "kid-1", secret), "base64");
    expect(a.subarray(0, 12).equals(b.subarray(0, 12))).toBe(false);
  });

  it("refuses another key encryption key, another kid, an altered byte and a truncated value, without echoing the key", () => {
    const stored = encryptPrivateKey(kek, "kid-1", secret);
    expect(() => decryptPrivateKey(randomBytes(32), "kid-1", stored)).toThrow(/does not decrypt/);
    expect(() => decryptPrivateKey(kek, "kid-2", stored)).toThrow(/does not decrypt/);
    const bytes = Buffer.from(stored, "base64");
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    expect(() => decryptPrivateKey(kek, "kid-1", bytes.toString("base64"))).toThrow(/does not decrypt/);
    expect(() => decryptPrivateKey(kek, "kid-1", bytes.subarray(0, 20).toString("base64"))).toThrow(/truncated/);
    try {
      decryptPrivateKey(randomBytes(32), "kid-1", stored);
    } catch (err) {
      expect(String(err)).not.toContain("private-part");
    }
  });

  it("demands a 32-byte key encryption key", () => {
    expect(() => encryptPrivateKey(randomBytes(16), "kid-1", secret)).toThrow(/32 bytes/);
  });
});
