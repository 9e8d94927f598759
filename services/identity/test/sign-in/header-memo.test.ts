import { describe, expect, it } from "vitest";
import { HeaderMemo } from "../../src/sign-in/header-memo.js";

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe("HeaderMemo", () => {
  it("drops an entry at its expiry", () => {
    const memo = new HeaderMemo<{ expiresAt: Date }>(10);
    memo.set("a", { expiresAt: at(10) }, at(0));
    expect(memo.get("a", at(9))).toBeDefined();
    expect(memo.get("a", at(10))).toBeUndefined();
    expect(memo.size).toBe(0);
  });

  it("stays within its bound: expired entries go first, then the oldest", () => {
    const memo = new HeaderMemo<{ expiresAt: Date }>(10);
    for (let i = 0; i < 10; i++) memo.set(`k${i}`, { expiresAt: at(i < 3 ? 5 : 100) }, at(0));
    memo.set("new", { expiresAt: at(100) }, at(6));
    expect(memo.size).toBeLessThanOrEqual(10);
    expect(memo.get("k0", at(6))).toBeUndefined();
    expect(memo.get("k9", at(6))).toBeDefined();
    expect(memo.get("new", at(6))).toBeDefined();
    for (let i = 0; i < 1000; i++) memo.set(`m${i}`, { expiresAt: at(100) }, at(6));
    expect(memo.size).toBeLessThanOrEqual(10);
    expect(memo.get("m999", at(6))).toBeDefined();
  });
});
