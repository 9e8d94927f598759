import type { BurstLimiterName } from "@board/proto";
import { isBusError, type Logger } from "@board/service-kit";
import type { BurstLimiter } from "./burst-limiter.js";
import type { BurstOwners } from "./owners.js";
import type { Take } from "./token-bucket.js";

/** One take sent on to its owner. */
export interface BurstTake {
  limiter: BurstLimiterName;
  key: string;
}

/** Carries takes to the member that owns them; resolves with one result per take (0 granted, else Retry-After seconds). */
export type SendTakes = (owner: string, takes: BurstTake[]) => Promise<number[]>;

export interface SharedBurstOptions {
  owners: BurstOwners;
  limiters: Record<BurstLimiterName, BurstLimiter>;
  /** The buckets' clock, in milliseconds (the meter's clock: tests move it). */
  now: () => number;
  /** Membership's clock, monotonic milliseconds (suspicion runs out in real time). */
  monotonic: () => number;
  send: SendTakes;
  log: Logger;
  /** At most this many takes per message to an owner. */
  batchMax: number;
}

/** How each take was answered, for the metrics and tests. */
export interface BurstCounts {
  /** Taken from a bucket this replica owns (asked here, or sent here by another replica). */
  local: number;
  /** Sent on to the owning replica and answered there. */
  forwarded: number;
  /** Its owner did not answer, nor did the next one: taken here, as a replica-local bucket. */
  fallback: number;
  /** Messages of takes sent on (takes / batches is the batching). */
  batches: number;
}

interface Pending extends BurstTake {
  /** 0 the first time; a take whose owner failed is routed once more. */
  attempt: number;
  resolve: (t: Take) => void;
}

/**
 * The burst limit across metering replicas: a take is spent from the one bucket of its key,
 * in the replica that owns the key (BurstOwners). A take arriving at another replica waits
 * for the owner's answer; takes for one owner that arrive together (one read of the socket)
 * go as one message, so a busy replica pays one round trip per owner per turn, not per read.
 *
 * When the owner does not answer (it died, or is stuck), it is suspected: its keys move to
 * the others at once and the take is routed again; if that fails too the take is answered
 * from this replica's own bucket. Reads never wait on a dead owner beyond one timeout, and a
 * limit that degrades for a moment to per-replica is the price (the gateway would pass the
 * read unchecked anyway once metering stops answering).
 */
export class SharedBurst {
  readonly counts: BurstCounts = { local: 0, forwarded: 0, fallback: 0, batches: 0 };
  private queued = new Map<string, Pending[]>();
  private flushing = false;
  private readonly warned = new Map<string, number>();

  constructor(private readonly opts: SharedBurstOptions) {}

  /** Spends one token of `key`'s bucket, wherever it lives. Answered without waiting when this replica owns it. */
  take(limiter: BurstLimiterName, key: string): Take | Promise<Take> {
    const owner = this.opts.owners.ownerOf(key);
    if (owner === this.opts.owners.self) return this.takeHere(limiter, key);
    return new Promise<Take>((resolve) => this.enqueue(owner, { limiter, key, attempt: 0, resolve }));
  }

  /** Answers takes another replica sent here: this replica owns them (as far as the sender knows). */
  serve(takes: readonly BurstTake[]): number[] {
    return takes.map((t) => encodeTake(this.takeHere(t.limiter, t.key)));
  }

  private takeHere(limiter: BurstLimiterName, key: string): Take {
    this.counts.local++;
    return this.opts.limiters[limiter].take(key, this.opts.now());
  }

  private enqueue(owner: string, p: Pending): void {
    const list = this.queued.get(owner);
    if (list) list.push(p);
    else this.queued.set(owner, [p]);
    if (!this.flushing) {
      this.flushing = true;
      // After the microtasks of this turn: every check of the current socket read is queued by then.
      queueMicrotask(() => this.flush());
    }
  }

  private flush(): void {
    this.flushing = false;
    const queued = this.queued;
    this.queued = new Map();
    for (const [owner, list] of queued) {
      for (let i = 0; i < list.length; i += this.opts.batchMax) void this.sendBatch(owner, list.slice(i, i + this.opts.batchMax));
    }
  }

  private async sendBatch(owner: string, batch: Pending[]): Promise<void> {
    this.counts.batches++;
    let results: number[];
    try {
      results = await this.opts.send(
        owner,
        batch.map((p) => ({ limiter: p.limiter, key: p.key })),
      );
      if (results.length !== batch.length) throw new Error(`the owner answered ${results.length} results for ${batch.length} takes`);
    } catch (err) {
      this.ownerFailed(owner, err);
      for (const p of batch) this.retry(p, owner);
      return;
    }
    this.counts.forwarded += batch.length;
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(decodeTake(results[i]!));
  }

  /**
   * A take whose owner failed goes to whoever owns its key now (once); when that is the same
   * owner again (not suspected: it answered, wrongly) or a second owner failed, it is taken
   * from this replica's own bucket.
   */
  private retry(p: Pending, failed: string): void {
    const owner = this.opts.owners.ownerOf(p.key);
    if (owner === this.opts.owners.self) {
      p.resolve(this.takeHere(p.limiter, p.key));
    } else if (p.attempt === 0 && owner !== failed) {
      this.enqueue(owner, { ...p, attempt: 1 });
    } else {
      this.counts.fallback++;
      p.resolve(this.opts.limiters[p.limiter].take(p.key, this.opts.now()));
    }
  }

  private ownerFailed(owner: string, err: unknown): void {
    // No responders (503) or no answer in time (504): the owner is gone or stuck. Anything
    // else (a reply that fails its contract, a newer replica's refusal) leaves it a member:
    // its takes fall back here, and the log says why.
    const unreachable = isBusError(err) && (err.status === 503 || err.status === 504);
    const suspected = unreachable && this.opts.owners.suspect(owner, this.opts.monotonic());
    const now = this.opts.monotonic();
    if (!suspected && now - (this.warned.get(owner) ?? -Infinity) < 60_000) return;
    this.warned.set(owner, now);
    const reason = isBusError(err) ? err.code : (err as Error).message;
    if (suspected) this.opts.log.warn({ owner, reason }, "burst owner did not answer; its buckets move to the other replicas");
    else this.opts.log.warn({ owner, reason }, "burst owner failed a take; answering from this replica's buckets");
  }
}

/** A take on the wire: 0 granted, otherwise the whole seconds to wait (at least 1). */
export const encodeTake = (t: Take): number => (t.ok ? 0 : t.retryAfterSeconds);
export const decodeTake = (n: number): Take => (n === 0 ? { ok: true } : { ok: false, retryAfterSeconds: n });
