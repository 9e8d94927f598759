import { BOARD_PUBLISHED_SUBJECT, boardRead, BoardPublishedEvent, PublishedState, publishedEventOf } from "@board/proto";
import { isBusError, requestBytes, type Logger, type NatsConnection } from "@board/service-kit";
import { Events } from "nats";

/** A published board as the streams send it: the event and its SSE frame, encoded once for every stream. */
export interface FeedEntry {
  readonly event: BoardPublishedEvent;
  readonly frame: Buffer;
}

export interface FeedOptions {
  nc: NatsConnection;
  log: Logger;
  /** How long asking the board for its current state may take. */
  timeoutMs: number;
  /** Events kept for Last-Event-ID resumes. */
  ringSize: number;
  /** How often the board is asked for its current state anyway, in case an event was lost (core NATS is at most once). */
  resyncMs: number;
}

const decoder = new TextDecoder();

/** One SSE event: its id is the commitment's seq, its data the event's JSON (one line: JSON.stringify writes no newline). */
export const frameOf = (event: BoardPublishedEvent): Buffer => Buffer.from(`id: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`);

/**
 * This replica's one follower of the board's publications: a subscription to
 * BOARD_PUBLISHED_SUBJECT and a ring of the last `ringSize` events, newest last. Every board
 * replica announces the same publication, so only an event newer than the newest held is
 * taken (by seq). It starts from the board's current state (board.v1.read of "state") and asks
 * again after a bus reconnect and every `resyncMs`, so an event missed while the bus was away
 * still arrives, late.
 */
export class BoardEventFeed {
  private readonly ring: FeedEntry[] = [];
  private readonly listeners = new Set<(entry: FeedEntry) => void>();
  private asking: Promise<void> | null = null;
  private lastFailure: string | null = null;

  constructor(private readonly opts: FeedOptions) {}

  /** Subscribes and asks the board for its current state (without waiting for the answer); the returned function stops it. */
  start(): () => void {
    const sub = this.opts.nc.subscribe(BOARD_PUBLISHED_SUBJECT, {
      callback: (err, msg) => {
        // A subscription the bus refused (permissions): the feed still follows by asking the board every resyncMs.
        if (err) return this.opts.log.error({ reason: "subscription_refused", subject: BOARD_PUBLISHED_SUBJECT }, "board events not followed; asking the board instead");
        const event = BoardPublishedEvent.safeParse(safeJson(msg.data));
        if (event.success) this.take(event.data);
        else this.opts.log.warn({ subject: BOARD_PUBLISHED_SUBJECT }, "a board event that fails its schema; ignored");
      },
    });
    const timer = setInterval(() => void this.resync(), this.opts.resyncMs);
    timer.unref();
    let stopped = false;
    void (async () => {
      for await (const s of this.opts.nc.status()) {
        if (stopped) break;
        if (s.type === Events.Reconnect) void this.resync();
      }
    })();
    void this.resync();
    return () => {
      stopped = true;
      clearInterval(timer);
      sub.unsubscribe();
    };
  }

  /** The newest event, if one is known yet. */
  current(): FeedEntry | null {
    return this.ring.at(-1) ?? null;
  }

  /**
   * What a client that saw `seq` missed, oldest first: the events after it, or the newest
   * alone when `seq` is older than the ring (what fell out of it is superseded by the newest,
   * which carries every hash). None when it is the newest or newer (another replica ran ahead).
   */
  since(seq: number): FeedEntry[] {
    const oldest = this.ring[0];
    if (!oldest) return [];
    if (seq < oldest.event.seq) return [this.ring.at(-1)!];
    return this.ring.filter((e) => e.event.seq > seq);
  }

  /** Called with each new event, in seq order. */
  onEvent(listener: (entry: FeedEntry) => void): void {
    this.listeners.add(listener);
  }

  /** Asks the board for its current state: a newer publication than the newest held is taken as its event. One ask at a time. */
  resync(): Promise<void> {
    this.asking ??= this.ask().finally(() => (this.asking = null));
    return this.asking;
  }

  private async ask(): Promise<void> {
    try {
      const { meta, body } = await requestBytes(this.opts.nc, boardRead, { view: "state", encoding: "identity" }, { timeoutMs: this.opts.timeoutMs });
      const event = publishedEventOf(meta, PublishedState.parse(JSON.parse(decoder.decode(body))));
      this.lastFailure = null;
      if (event) this.take(event);
    } catch (err) {
      // Said once per kind of failure (the board not up yet is the normal start order), as a reason code.
      const reason = isBusError(err) ? err.code : "invalid_reply";
      if (reason !== this.lastFailure) this.opts.log.info({ reason }, "board state not read; the feed waits for the board's next event");
      this.lastFailure = reason;
    }
  }

  private take(event: BoardPublishedEvent): void {
    const newest = this.ring.at(-1);
    if (newest && event.seq <= newest.event.seq) return;
    const entry = { event, frame: frameOf(event) };
    this.ring.push(entry);
    if (this.ring.length > this.opts.ringSize) this.ring.shift();
    for (const listener of this.listeners) listener(entry);
  }
}

function safeJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return null;
  }
}
