import { describe, expect, it } from "vitest";
import { CountedWallets } from "../../src/access/counted-wallets.js";

describe("CountedWallets", () => {
  it("holds a wallet as counted for its address until its count ends, not a moment past", () => {
    let now = Date.parse("2026-11-27T12:00:00Z");
    const wallets = new CountedWallets(() => new Date(now));
    expect(wallets.counts("203.0.113.1", "wallet:eip155:8453:0xabc")).toBe(false);
    wallets.remember("203.0.113.1", "wallet:eip155:8453:0xabc", "2026-11-27T12:30:00.000Z");
    expect(wallets.counts("203.0.113.1", "wallet:eip155:8453:0xabc")).toBe(true);
    // Counted per address: another address has not counted it.
    expect(wallets.counts("203.0.113.2", "wallet:eip155:8453:0xabc")).toBe(false);
    now = Date.parse("2026-11-27T12:29:59.999Z");
    expect(wallets.counts("203.0.113.1", "wallet:eip155:8453:0xabc")).toBe(true);
    now = Date.parse("2026-11-27T12:30:00Z");
    expect(wallets.counts("203.0.113.1", "wallet:eip155:8453:0xabc")).toBe(false);
  });

  it("keeps nothing already ended", () => {
    const wallets = new CountedWallets(() => new Date("2026-11-27T12:00:00Z"));
    wallets.remember("203.0.113.1", "wallet:x", "2026-11-27T11:59:59.000Z");
    expect(wallets.counts("203.0.113.1", "wallet:x")).toBe(false);
  });
});
