import { ServedRead, SERVED_READS_STREAM } from "@board/proto";
import { awaitStream, consumerLag, type Logger } from "@board/service-kit";
import { DeliverPolicy, type ConsumerMessages, type JsMsg, type NatsConnection } from "nats";
import { StreamChanged, type ReadsServedLedger, type ServedEntry } from "./ledger.js";

const decoder = new TextDecoder();

export interface ReaderOptions {
  nc: NatsConnection;
  ledger: ReadsServedLedger;
  log: Logger;
  batchMax: number;
  batchWaitMs: number;
  /** Called after a batch that counted something is committed. */
  onCounted: () => Promise<void>;
  /** How often the reader checks that the stream is still the one it reads (default 30 s). */
  streamCheckMs?: number;
}

export interface ServedReadsReader {
  /** Commits what has been read so far, then stops reading. */
  stop(): Promise<void>;
}

/**
 * Folds the served-reads stream into the per-route counts. Each replica reads the stream in
 * order from the position the database holds (an ordered consumer), in batches of up to
 * `batchMax` messages or `batchWaitMs`, and commits each batch with the position. Replicas
 * that read the same messages race on the position's row lock and only the first counts
 * them. (A durable consumer shared by the replicas would split the stream between them and
 * redeliver an unacknowledged message after newer ones were committed: a position could then
 * no longer tell a counted message from one that was not.)
 */
export function followServedReads(opts: ReaderOptions): ServedReadsReader {
  let stopped = false;
  let messages: ConsumerMessages | null = null;
  const waiting = new AbortController();
  const progress = consumerLag(opts.nc, SERVED_READS_STREAM);
  let wake: () => void = () => undefined;
  const stopping = new Promise<void>((resolve) => (wake = () => (waiting.abort(), resolve())));
  /** A pause between attempts that ends early when the reader stops. */
  const pause = (ms: number) => Promise.race([sleep(ms), stopping]);

  const run = async () => {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        await readFromPosition();
        // The consumer ended without being stopped (the connection closed it): read on from the position.
        attempt = 0;
        if (!stopped) await pause(250);
      } catch (err) {
        if (stopped) break;
        if (err instanceof StreamChanged) opts.log.info("served-reads stream was made anew; resuming from its start");
        else opts.log.error({ err: (err as Error).message }, "reading served reads failed; retrying");
        await pause(err instanceof StreamChanged ? 0 : Math.min(5000, 100 * 2 ** attempt));
      }
    }
  };

  const readFromPosition = async () => {
    const jsm = await opts.nc.jetstreamManager();
    // The deploy step makes the stream (a service may not): one deleted from under the reader is waited for.
    const info = await awaitStream(opts.nc, SERVED_READS_STREAM, { log: opts.log, signal: waiting.signal });
    const created = info.created;
    const after = await opts.ledger.resume(created);
    progress.processed(after);
    if (info.state.messages > 0 && info.state.first_seq > after + 1) {
      opts.log.warn({ after, first_seq: info.state.first_seq }, "served reads left the stream before they were counted");
    }
    const consumer = await opts.nc.jetstream().consumers.get(SERVED_READS_STREAM, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: after + 1,
    });
    const iter = await consumer.consume({ max_messages: opts.batchMax * 2 });
    messages = iter;
    if (stopped) iter.stop();
    const batch = new Batcher(opts.batchMax, opts.batchWaitMs, (entries) => commit(created, entries), (err) => iter.stop(err));
    // A stream deleted and made again starts at sequence 1, which this consumer would wait for in vain.
    const watch = setInterval(() => {
      jsm.streams.info(SERVED_READS_STREAM).then(
        (now) => {
          if (now.created !== created) batch.fail(new StreamChanged());
        },
        (err: unknown) => {
          if ((err as { code?: string }).code === "404") batch.fail(new StreamChanged());
        },
      );
    }, opts.streamCheckMs ?? 30_000);
    try {
      for await (const m of iter) {
        const full = batch.add(entry(m, opts.log));
        // Waiting here holds back the next pull: a slow database slows the reading, never grows memory.
        if (full) await full;
      }
    } finally {
      clearInterval(watch);
      await batch.flush().catch(() => undefined);
    }
    const failure = batch.failure;
    if (failure) throw failure;
  };

  const commit = async (created: string, entries: ServedEntry[]) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const done = await opts.ledger.commit(created, entries);
        // Committed here or by another replica first: either way this replica is past them.
        const last = entries.at(-1);
        if (last) progress.processed(last.seq);
        if (done.gap > 0) opts.log.warn({ missing: done.gap, last_seq: done.lastSeq }, "served reads left the stream before they were counted");
        if (done.counted > 0) await opts.onCounted().catch((err: unknown) => opts.log.warn({ err }, "reads served event not published"));
        return;
      } catch (err) {
        // Not committed: the position did not move, so these messages are read again after a restart.
        if (err instanceof StreamChanged || stopped) throw err;
        if (attempt === 0) opts.log.error({ err: (err as Error).message }, "served reads not committed yet; retrying");
        await pause(Math.min(5000, 100 * 2 ** attempt));
      }
    }
  };

  const done = run();
  return {
    stop: async () => {
      stopped = true;
      wake();
      messages?.stop();
      await done;
    },
  };
}

function entry(m: JsMsg, log: Logger): ServedEntry {
  let raw: unknown;
  try {
    raw = JSON.parse(decoder.decode(m.data));
  } catch {
    raw = undefined;
  }
  const parsed = ServedRead.safeParse(raw);
  if (parsed.success) return { seq: m.seq, route: parsed.data.route, count: parsed.data.count };
  // Skipped but passed over by the position: an event that fails its contract never counts.
  log.warn({ seq: m.seq }, "served read fails its contract; not counted");
  return { seq: m.seq, route: null, count: 0 };
}

/**
 * Collects entries into batches committed one after another, in stream order: a batch goes
 * when it is full or `waitMs` after its first entry.
 */
class Batcher {
  private pending: ServedEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  failure: Error | null = null;

  constructor(
    private readonly max: number,
    private readonly waitMs: number,
    private readonly commit: (entries: ServedEntry[]) => Promise<void>,
    private readonly onFailure: (err: Error) => void,
  ) {}

  /** Adds an entry; returns the flush to wait for when the batch is full. */
  add(e: ServedEntry): Promise<void> | null {
    if (this.failure) return null;
    this.pending.push(e);
    if (this.pending.length >= this.max) return this.flush();
    this.timer ??= setTimeout(() => void this.flush().catch(() => undefined), this.waitMs);
    return null;
  }

  /** Ends the reading: what is pending is dropped (it is read again from the position). */
  fail(err: Error): void {
    this.failure ??= err;
    this.onFailure(this.failure);
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0 || this.failure) return this.chain;
    const entries = this.pending;
    this.pending = [];
    this.chain = this.chain.then(() => this.commit(entries)).catch((err: unknown) => {
      this.failure ??= err as Error;
      this.onFailure(this.failure);
      throw this.failure;
    });
    return this.chain;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
