import { describe, expect, it } from "vitest";
import { BurstLimiter } from "../../src/burst/burst-limiter.js";

describe("burst limiter", () => {
  it("keeps one bucket per key", () => {
    const l = new BurstLimiter({ capacity: 2, per_second: 1 }, 100);
    expect([l.take("a", 0).ok, l.take("a", 0).ok, l.take("a", 0).ok]).toEqual([true, true, false]);
    expect(l.take("b", 0).ok).toBe(true);
    expect(l.size).toBe(2);
  });

  it("forgets refilled buckets on a sweep, and only those", () => {
    const l = new BurstLimiter({ capacity: 2, per_second: 1 }, 100);
    l.take("idle", 0);
    l.take("idle", 0);
    l.take("busy", 0);
    l.take("busy", 1500);
    expect(l.refillMs).toBe(2000);
    expect(l.sweep(1600)).toBe(0);
    expect(l.sweep(2000)).toBe(1); // "idle" is full again; "busy" holds 1.5 tokens
    expect(l.size).toBe(1);
    expect(l.sweep(10_000)).toBe(1);
    expect(l.size).toBe(0);
  });

  it("never holds more than its cap: the least recently used bucket goes first", () => {
    const l = new BurstLimiter({ capacity: 1, per_second: 0.001 }, 100);
    for (let i = 0; i < 100; i++) l.take(`k${i}`, 0);
    l.take("k0", 0); // k0 used again: now the most recent (and empty)
    l.take("new", 0);
    expect(l.size).toBe(100);
    expect(l.take("k0", 0).ok).toBe(false); // kept
    expect(l.take("k1", 0).ok).toBe(true); // evicted, so it starts afresh
    expect(l.size).toBe(100);
  });
});
