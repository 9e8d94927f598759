import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { emailDigest, normalizeEmail } from "../../src/keys/email.js";

describe("email digest", () => {
  const key = new Uint8Array(32).fill(3);

  it("normalizes by trimming and lowercasing", () => {
    expect(normalizeEmail("  Trader@Example.COM \n")).toBe("trader@example.com");
    expect(emailDigest(key, " Trader@Example.COM")).toBe(emailDigest(key, "trader@example.com"));
  });

  it("is HMAC-SHA256 under the email key, so another key gives another digest", () => {
    expect(emailDigest(key, "a@b.co")).toBe(createHmac("sha256", key).update("a@b.co").digest("hex"));
    expect(emailDigest(new Uint8Array(32).fill(4), "a@b.co")).not.toBe(emailDigest(key, "a@b.co"));
    expect(emailDigest(key, "a@b.co")).not.toContain("a@b.co");
  });
});
