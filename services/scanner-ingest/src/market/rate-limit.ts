// A token bucket for outgoing requests: `perMinute` tokens a minute, at most `burst` saved up.
// Callers are served in arrival order; each take() resolves when its request may go.

import { setTimeout as sleep } from "node:timers/promises";

export type TokenBucketOptions = {
  /** Tokens saved up at most (and available at the start). Default 1: requests evenly spaced. */
  burst?: number;
  /** Aborting rejects every pending and later take(). */
  signal?: AbortSignal;
};

export class TokenBucket {
  readonly perMinute: number;
  readonly burst: number;
  readonly #perMs: number;
  readonly #signal: AbortSignal | undefined;
  #tokens: number;
  #last = performance.now();
  #queue: Promise<void> = Promise.resolve();

  constructor(perMinute: number, opts: TokenBucketOptions = {}) {
    if (!(perMinute > 0) || !Number.isFinite(perMinute)) throw new RangeError(`rate limit must be a positive number per minute, got ${perMinute}`);
    const burst = opts.burst ?? 1;
    if (!(burst >= 1)) throw new RangeError(`burst must be at least 1, got ${burst}`);
    this.perMinute = perMinute;
    this.burst = burst;
    this.#perMs = perMinute / 60_000;
    this.#tokens = burst;
    this.#signal = opts.signal;
  }

  /** Resolves when a token is granted (in call order); rejects once the signal is aborted. */
  take(): Promise<void> {
    const turn = this.#queue.then(() => this.#acquire());
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #acquire(): Promise<void> {
    this.#signal?.throwIfAborted();
    this.#refill();
    if (this.#tokens < 1) {
      const waitMs = Math.ceil((1 - this.#tokens) / this.#perMs);
      await sleep(waitMs, undefined, this.#signal ? { signal: this.#signal } : {});
      this.#refill();
    }
    this.#tokens = Math.max(0, this.#tokens - 1);
  }

  #refill(): void {
    const now = performance.now();
    this.#tokens = Math.min(this.burst, this.#tokens + (now - this.#last) * this.#perMs);
    this.#last = now;
  }
}
