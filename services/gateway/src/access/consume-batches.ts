import { ErrorCode, MAX_CONSUMES_PER_MESSAGE, meteringConsumeMany, type ConsumeOutcome, type ConsumeReply, type MeterKind } from "@board/proto";
import { BusError, request, type NatsConnection } from "@board/service-kit";

interface Pending {
  check: { principal: string; kind: MeterKind };
  resolve: (reply: ConsumeReply) => void;
  reject: (err: unknown) => void;
}

/**
 * The reads to count of one event-loop turn (burst checks and free-tier daily counts), sent to
 * metering as one consume_many per timeout instead of a request each: under load a gateway
 * asks dozens at once, and each request is a bus message out and one back, in both processes
 * (and, for a daily count, a statement: metering counts a message's reads in one). Each is
 * answered as consume would answer it (the same bucket and daily row, taken in the order
 * asked); a failed message fails each of its reads as the request would have.
 */
export class ConsumeBatches {
  private readonly queues = new Map<number, Pending[]>();

  constructor(private readonly nc: NatsConnection) {}

  take(principal: string, kind: MeterKind, timeoutMs: number): Promise<ConsumeReply> {
    return new Promise<ConsumeReply>((resolve, reject) => {
      let queue = this.queues.get(timeoutMs);
      if (!queue) {
        queue = [];
        this.queues.set(timeoutMs, queue);
        setImmediate(() => this.flush(timeoutMs));
      }
      queue.push({ check: { principal, kind }, resolve, reject });
    });
  }

  private flush(timeoutMs: number): void {
    const queue = this.queues.get(timeoutMs) ?? [];
    this.queues.delete(timeoutMs);
    for (let i = 0; i < queue.length; i += MAX_CONSUMES_PER_MESSAGE) void this.send(queue.slice(i, i + MAX_CONSUMES_PER_MESSAGE), timeoutMs);
  }

  private async send(batch: Pending[], timeoutMs: number): Promise<void> {
    let replies: ConsumeOutcome[];
    try {
      ({ replies } = await request(this.nc, meteringConsumeMany, { requests: batch.map((p) => p.check) }, { timeoutMs }));
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => {
      const outcome = replies[i];
      if (!outcome) p.reject(new BusError("invalid_reply", 502, "metering answered fewer reads than it was sent"));
      else if ("failed" in outcome) {
        const code = ErrorCode.safeParse(outcome.failed.code);
        p.reject(new BusError(code.success ? code.data : "invalid_reply", outcome.failed.status));
      } else p.resolve(outcome);
    });
  }
}

const byConnection = new WeakMap<NatsConnection, ConsumeBatches>();

/** The consume batches of a gateway's bus connection. */
export function consumeBatchesOf(nc: NatsConnection): ConsumeBatches {
  let checks = byConnection.get(nc);
  if (!checks) {
    checks = new ConsumeBatches(nc);
    byConnection.set(nc, checks);
  }
  return checks;
}
