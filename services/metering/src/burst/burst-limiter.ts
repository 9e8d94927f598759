import type { BurstLimit } from "@board/proto";
import { TokenBucket, type Take } from "./token-bucket.js";

/**
 * Token buckets keyed by principal (or by "ip:<address>" for anonymous reads), in this
 * replica's memory. With several replicas each key is spent only in the replica that owns it
 * (SharedBurst), so these are the buckets of this replica's share of the keys.
 *
 * Memory stays bounded two ways: `sweep` forgets buckets that have refilled (a full bucket
 * equals a fresh one, so nothing is lost), and past `maxBuckets` the least recently used
 * bucket goes (under a flood of distinct addresses the oldest one starts afresh).
 */
export class BurstLimiter {
  /** Map order is recency order: a bucket is re-inserted on every use. */
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    readonly limit: BurstLimit,
    private readonly maxBuckets: number,
  ) {}

  take(key: string, nowMs: number): Take {
    let bucket = this.buckets.get(key);
    if (bucket) this.buckets.delete(key);
    else bucket = new TokenBucket(this.limit, nowMs);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxBuckets) {
      const oldest = this.buckets.keys().next();
      if (!oldest.done) this.buckets.delete(oldest.value);
    }
    return bucket.take(nowMs);
  }

  /** Forgets every bucket that has refilled; returns how many went. */
  sweep(nowMs: number): number {
    let removed = 0;
    for (const [key, bucket] of this.buckets) {
      if (bucket.isFull(nowMs)) {
        this.buckets.delete(key);
        removed++;
      }
    }
    return removed;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** How long an idle bucket takes to refill: the sweep period that keeps memory to the active clients. */
  get refillMs(): number {
    return Math.ceil((this.limit.capacity / this.limit.per_second) * 1000);
  }
}
