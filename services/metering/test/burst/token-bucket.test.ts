import { describe, expect, it } from "vitest";
import { TokenBucket } from "../../src/burst/token-bucket.js";

describe("token bucket", () => {
  it("grants `capacity` reads at once, then refuses with the whole seconds until one token", () => {
    const b = new TokenBucket({ capacity: 3, per_second: 0.5 }, 0);
    expect([b.take(0), b.take(0), b.take(0)]).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect(b.take(0)).toEqual({ ok: false, retryAfterSeconds: 2 });
    expect(b.take(1000)).toEqual({ ok: false, retryAfterSeconds: 1 }); // half a token: one more second
    expect(b.take(2000)).toEqual({ ok: true });
    expect(b.take(2000)).toEqual({ ok: false, retryAfterSeconds: 2 });
  });

  it("never answers a Retry-After below 1, even at a high refill rate", () => {
    const b = new TokenBucket({ capacity: 1, per_second: 100 }, 0);
    expect(b.take(0).ok).toBe(true);
    expect(b.take(0)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(b.take(10).ok).toBe(true);
  });

  it("refills continuously up to its capacity and no further", () => {
    const b = new TokenBucket({ capacity: 2, per_second: 10 }, 0);
    b.take(0);
    b.take(0);
    expect(b.isFull(100)).toBe(false);
    expect(b.isFull(200)).toBe(true);
    expect(b.isFull(60_000)).toBe(true);
    expect([b.take(60_000).ok, b.take(60_000).ok, b.take(60_000).ok]).toEqual([true, true, false]);
  });

  it("refills nothing when the clock steps back", () => {
    const b = new TokenBucket({ capacity: 1, per_second: 1 }, 10_000);
    expect(b.take(10_000).ok).toBe(true);
    expect(b.take(5_000)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(b.take(10_500).ok).toBe(false);
    expect(b.take(11_000).ok).toBe(true);
  });
});
