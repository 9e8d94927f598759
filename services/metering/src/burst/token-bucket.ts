import type { BurstLimit } from "@board/proto";

export type Take = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * One token bucket: `capacity` reads at once, refilled continuously at `per_second`. Time
 * is passed in (milliseconds), so the arithmetic is pure and tests need no waiting.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly limit: BurstLimit,
    nowMs: number,
  ) {
    this.tokens = limit.capacity;
    this.at = nowMs;
  }

  /** Takes one token if there is one; otherwise how long until there is (whole seconds, at least 1). */
  take(nowMs: number): Take {
    this.refill(nowMs);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - this.tokens) / this.limit.per_second)) };
  }

  /** A full bucket is no different from a new one, so it can be forgotten. */
  isFull(nowMs: number): boolean {
    this.refill(nowMs);
    return this.tokens >= this.limit.capacity;
  }

  private refill(nowMs: number): void {
    // A clock that steps back refills nothing rather than draining the bucket.
    const elapsed = Math.max(0, nowMs - this.at) / 1000;
    this.tokens = Math.min(this.limit.capacity, this.tokens + elapsed * this.limit.per_second);
    this.at = Math.max(this.at, nowMs);
  }
}
