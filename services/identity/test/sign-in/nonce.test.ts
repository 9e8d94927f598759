import { describe, expect, it } from "vitest";
import { SignInNonces } from "../../src/sign-in/nonce.js";

const binding = { issuedAt: "2026-01-02T03:04:05.678Z", expirationTime: "2026-01-02T03:14:05.678Z", domain: "board.example" };

describe("SignInNonces", () => {
  const nonces = new SignInNonces(new Uint8Array(32).fill(1));

  it("verifies what it issued, for exactly those times and that domain", () => {
    const nonce = nonces.issue(binding);
    expect(nonce).toMatch(/^[0-9a-f]{48}$/);
    expect(nonces.verify(nonce, binding)).toBe(true);
    expect(nonces.verify(nonce, { ...binding, expirationTime: "2026-01-02T03:24:05.678Z" })).toBe(false);
    expect(nonces.verify(nonce, { ...binding, issuedAt: "2026-01-02T03:04:05.679Z" })).toBe(false);
    expect(nonces.verify(nonce, { ...binding, domain: "board.example:443" })).toBe(false);
  });

  it("refuses a changed random part, another key, and anything not 48 lowercase hex", () => {
    const nonce = nonces.issue(binding);
    const flipped = (nonce[0] === "0" ? "1" : "0") + nonce.slice(1);
    expect(nonces.verify(flipped, binding)).toBe(false);
    expect(new SignInNonces(new Uint8Array(32).fill(2)).verify(nonce, binding)).toBe(false);
    for (const bad of [nonce.toUpperCase(), nonce.slice(0, -2), `${nonce}00`, "", "z".repeat(48)]) {
      expect(nonces.verify(bad, binding)).toBe(false);
    }
  });

  it("wants a 32-byte key", () => {
    expect(() => new SignInNonces(new Uint8Array(16))).toThrow(/32 bytes/);
  });
});
