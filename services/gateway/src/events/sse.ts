import type { ServerResponse } from "node:http";

export interface SlowClientBound {
  /** Bytes this process may hold for one stream beyond what the kernel took: past it the stream is dropped. */
  maxBufferedBytes: number;
  /** How long a write may wait for its drain before the stream is dropped. */
  maxStallMs: number;
}

export type DropReason = "buffer" | "stalled";

/** A heartbeat: an SSE comment, which clients ignore and proxies see as traffic. */
const HEARTBEAT = Buffer.from(":\n\n");

/** The headers of an event stream: nothing may cache or buffer it (X-Accel-Buffering: nginx, the Ingress). */
export const STREAM_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache",
  "X-Accel-Buffering": "no",
} as const;

/**
 * One client's event stream over a response. Writes never queue without bound: a client that
 * does not read is dropped (the connection destroyed) once this process holds more than
 * `maxBufferedBytes` for it, or a write has waited `maxStallMs` for its drain; it reconnects
 * with Last-Event-ID when it reads again. `lastSeq` is the newest event it was sent, so no
 * event goes twice down one stream.
 */
export class SseStream {
  lastSeq = 0;
  private stall: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly bound: SlowClientBound,
    private readonly onDrop: (reason: DropReason) => void,
  ) {
    res.once("close", () => {
      this.closed = true;
      this.clearStall();
    });
  }

  /** The status line and headers, sent at once (EventSource waits for them), and the client's reconnection delay. */
  open(retryMs: number): void {
    this.res.writeHead(200, STREAM_HEADERS);
    this.res.flushHeaders();
    this.write(Buffer.from(`retry: ${retryMs}\n\n`));
  }

  /** An event frame (feed.ts), unless this stream already had that seq or a newer one. */
  send(frame: Buffer, seq: number): void {
    if (seq <= this.lastSeq) return;
    this.lastSeq = seq;
    this.write(frame);
  }

  heartbeat(): void {
    this.write(HEARTBEAT);
  }

  /** Ends the stream cleanly (the replica stops): the client reconnects, to another replica. */
  end(): void {
    if (this.closed) return;
    this.res.end();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private write(chunk: Buffer): void {
    if (this.closed) return;
    const drained = this.res.write(chunk);
    if (this.res.writableLength > this.bound.maxBufferedBytes) return this.drop("buffer");
    if (drained || this.stall) return;
    this.stall = setTimeout(() => this.drop("stalled"), this.bound.maxStallMs);
    this.stall.unref();
    this.res.once("drain", () => this.clearStall());
  }

  private drop(reason: DropReason): void {
    if (this.closed) return;
    this.closed = true;
    this.clearStall();
    this.onDrop(reason);
    this.res.destroy();
  }

  private clearStall(): void {
    if (this.stall) clearTimeout(this.stall);
    this.stall = null;
  }
}
