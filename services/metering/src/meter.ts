import {
  FREE_DAILY_LIMIT,
  type ConsumeManyReply,
  type ConsumeManyRequest,
  type ConsumeReply,
  type ConsumeRequest,
  type DailyCount,
  type RefundReply,
  type RefundRequest,
} from "@board/proto";
import { BusError, isBusError } from "@board/service-kit";
import type { SharedBurst } from "./burst/shared-burst.js";
import type { DailyCaps } from "./daily/daily-caps.js";
import { isCalendarDay, nextUtcMidnight, secondsUntil, utcDay } from "./daily/utc-day.js";

export interface MeterOptions {
  caps: DailyCaps;
  /**
   * The burst buckets, each in the replica that owns it: `principal` buckets for free and
   * licensed reads, `address` buckets for anonymous reads (principal "ip:<address>").
   */
  burst: SharedBurst;
  now: () => Date;
}

/**
 * Decides whether a read may be served. The burst comes first, so a burst-limited read
 * costs no daily read (and no database write); then a free read is counted against the
 * day's cap of FREE_DAILY_LIMIT.
 */
export class Meter {
  constructor(private readonly opts: MeterOptions) {}

  async consume(req: ConsumeRequest): Promise<ConsumeReply> {
    const now = this.opts.now();
    if (req.kind === "anonymous" && !req.principal.startsWith("ip:")) throw new BusError("invalid_request", 400);
    const burst = await this.opts.burst.take(req.kind === "anonymous" ? "address" : "principal", req.principal);
    // The daily count is not read for a burst refusal: it is answered from memory alone.
    if (!burst.ok) return { granted: false, reason: "burst_limited", retry_after_seconds: burst.retryAfterSeconds, daily: null };
    if (req.kind !== "free") return { granted: true, daily: null };

    const day = utcDay(now);
    const resetAt = nextUtcMidnight(now);
    const outcome = await this.opts.caps.count(req.principal, day, FREE_DAILY_LIMIT);
    const count = (used: number): DailyCount => ({ day, used_today: used, limit: FREE_DAILY_LIMIT, reset_at: resetAt.toISOString() });
    if (outcome.counted) return { granted: true, daily: count(outcome.used) };
    return { granted: false, reason: "daily_cap_reached", retry_after_seconds: secondsUntil(resetAt, now), daily: count(FREE_DAILY_LIMIT) };
  }

  /** Burst checks sent together (consume_many): each answered as consume answers it, a failure as the bus error it would have been. */
  async consumeMany(req: ConsumeManyRequest): Promise<ConsumeManyReply> {
    const replies = await Promise.all(
      req.requests.map((r) =>
        this.consume(r).catch((err: unknown) => {
          if (isBusError(err)) return { failed: { code: err.code, status: err.status } };
          throw err;
        }),
      ),
    );
    return { replies };
  }

  /** Gives back a counted read the gateway could not serve (only served reads count). */
  async refund(req: RefundRequest): Promise<RefundReply> {
    if (!isCalendarDay(req.day)) throw new BusError("invalid_request", 400);
    return { refunded: await this.opts.caps.refund(req.principal, req.day) };
  }
}
