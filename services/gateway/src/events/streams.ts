import type { ServerResponse } from "node:http";
import { Counter, Gauge, type Metrics } from "@board/service-kit";
import { StreamCaps, type CapLimits, type CapRefusal } from "./caps.js";
import type { BoardEventFeed } from "./feed.js";
import { SseStream, type DropReason, type SlowClientBound } from "./sse.js";

export interface EventStreamsOptions {
  feed: BoardEventFeed;
  caps: CapLimits;
  bound: SlowClientBound;
  heartbeatMs: number;
  /** The reconnection delay clients are told (`retry:`), before its jitter. */
  retryMs: number;
  metrics: Metrics;
}

/** A slot a stream may open on; given back once, by the stream's close or by `release`. */
export interface StreamSlot {
  readonly client: string;
  release(): void;
}

/**
 * The event streams of this gateway replica: the caps, the fan-out of each new event of the
 * feed to every open stream (one frame encoded once, written to each), one heartbeat timer
 * for all of them, and their count on /metrics.
 */
export class EventStreams {
  private readonly open = new Set<SseStream>();
  private readonly caps: StreamCaps;
  private readonly dropped: Counter<"reason">;
  private readonly heartbeat: NodeJS.Timeout;
  private stopping = false;

  constructor(private readonly opts: EventStreamsOptions) {
    this.caps = new StreamCaps(opts.caps);
    opts.feed.onEvent((entry) => {
      for (const stream of this.open) stream.send(entry.frame, entry.event.seq);
    });
    this.heartbeat = setInterval(() => {
      for (const stream of this.open) stream.heartbeat();
    }, opts.heartbeatMs);
    this.heartbeat.unref();
    const open = this.open;
    new Gauge({
      name: "event_streams_open",
      help: "Server-Sent Event streams open on this gateway (/api/board/events)",
      registers: [opts.metrics.registry],
      collect() {
        this.set(open.size);
      },
    });
    this.dropped = new Counter({
      name: "event_streams_dropped_total",
      help: "Event streams dropped because their client did not read (buffer: too many bytes held; stalled: a write not drained in time)",
      labelNames: ["reason"],
      registers: [opts.metrics.registry],
    });
  }

  /** A slot for a new stream of `client` (its address), or why not; "stopping" while the replica shuts down. */
  admit(client: string): StreamSlot | CapRefusal | "stopping" {
    if (this.stopping) return "stopping";
    const refused = this.caps.take(client);
    if (refused) return refused;
    let held = true;
    return {
      client,
      release: () => {
        if (held) this.caps.give(client);
        held = false;
      },
    };
  }

  /**
   * Opens the stream on `res`: the retry delay, then what the client has not seen (after
   * `lastEventId`, or the newest event), then every new event until it closes.
   */
  attach(slot: StreamSlot, res: ServerResponse, lastEventId: number | null): SseStream | null {
    // Its client left while it was admitted (the burst check): there is no close to wait for.
    if (!res.socket || res.socket.destroyed) {
      slot.release();
      return null;
    }
    const stream = new SseStream(res, this.opts.bound, (reason: DropReason) => this.dropped.inc({ reason }));
    res.once("close", () => {
      this.open.delete(stream);
      slot.release();
    });
    // Spread over a second or two, so the clients of a replica that stops do not all come back at once.
    stream.open(this.opts.retryMs + Math.floor(Math.random() * 2000));
    const feed = this.opts.feed;
    if (lastEventId !== null) for (const missed of feed.since(lastEventId)) stream.send(missed.frame, missed.event.seq);
    else {
      const current = feed.current();
      if (current) stream.send(current.frame, current.event.seq);
    }
    // The first event follows from the board once it answers (a replica that started before the board).
    if (!feed.current()) void feed.resync();
    if (!stream.isClosed) this.open.add(stream);
    return stream;
  }

  /** Ends every stream and admits no more: the clients reconnect, to another replica. */
  stop(): void {
    this.stopping = true;
    clearInterval(this.heartbeat);
    for (const stream of this.open) stream.end();
    this.open.clear();
  }
}
