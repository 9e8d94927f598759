import { Snapshot, SNAPSHOT_STREAM } from "@board/proto";
import { awaitStream, consumeTraced, consumerLag, decodeSnapshotMessage, type Logger } from "@board/service-kit";
import { DeliverPolicy, type ConsumerMessages, type JsMsg, type NatsConnection } from "nats";
import { snapshotHash, type SnapshotStore } from "./store.js";

const decoder = new TextDecoder();

export interface SnapshotConsumer {
  stop(): Promise<void>;
}

/**
 * Follows the BOARD stream from the last sequence this database holds, stores every
 * snapshot (idempotently), and calls `onCaughtUp` once nothing is pending, so a replica
 * that restarts stores what it missed but renders only the newest. The stream is the deploy
 * step's to create: until it exists the board serves what it has stored and waits for it.
 */
export async function consumeSnapshots(opts: {
  nc: NatsConnection;
  store: SnapshotStore;
  log: Logger;
  onCaughtUp: () => Promise<void>;
}): Promise<SnapshotConsumer> {
  const waiting = new AbortController();
  let messages: ConsumerMessages | null = null;
  const progress = consumerLag(opts.nc, SNAPSHOT_STREAM);
  const open = async (): Promise<ConsumerMessages> => {
    await awaitStream(opts.nc, SNAPSHOT_STREAM, { log: opts.log, signal: waiting.signal });
    const startSeq = (await opts.store.lastStreamSeq()) + 1;
    progress.processed(startSeq - 1);
    const consumer = await opts.nc.jetstream().consumers.get(SNAPSHOT_STREAM, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: startSeq,
    });
    return consumer.consume({ max_messages: 8 });
  };
  let stopped = false;
  const storeOne = async (m: JsMsg): Promise<"stored" | "skipped" | "stopped"> => {
    let json: Uint8Array;
    let body: string;
    let snapshot: Snapshot;
    try {
      // Compressed on the bus (gzip) or plain, as older messages are: the hash is always of the JSON.
      json = decodeSnapshotMessage(m.data, m.headers);
      body = decoder.decode(json);
      snapshot = Snapshot.parse(JSON.parse(body));
    } catch {
      // A snapshot that fails its contract is never served; it stays in the stream for inspection.
      opts.log.error({ seq: m.seq }, "snapshot fails its schema; skipped");
      return "skipped";
    }
    const hash = snapshotHash(json);
    // The database may be away: retry this snapshot until it is stored, so none is skipped.
    const isNew = await untilStored(() => opts.store.save(snapshot, body, hash, m.seq), opts.log, m.seq, () => stopped);
    if (isNew === undefined) return "stopped";
    opts.log.info({ seq: m.seq, asof: snapshot.board.asof_daily, computed_at: snapshot.board.computed_at, isNew }, "snapshot stored");
    return "stored";
  };
  const done = (async () => {
    const iter = await open();
    messages = iter;
    if (stopped) iter.stop();
    for await (const m of iter) {
      // Stored in a CONSUMER span under the scanner's publish span: the snapshot's trace runs on into the board.
      const outcome = await consumeTraced(opts.nc, m, () => storeOne(m));
      if (outcome === "stopped") break;
      progress.processed(m.seq);
      if (outcome === "stored" && m.info.pending === 0) await opts.onCaughtUp().catch((err: unknown) => opts.log.error({ err }, "publication failed"));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      waiting.abort();
      messages?.stop();
      await done.catch(() => undefined);
    },
  };
}

async function untilStored<T>(save: () => Promise<T>, log: Logger, seq: number, stopped: () => boolean): Promise<T | undefined> {
  for (let attempt = 0; !stopped(); attempt++) {
    try {
      return await save();
    } catch (err) {
      if (attempt === 0) log.error({ err: (err as Error).message, seq }, "snapshot not stored yet; retrying");
      await new Promise((r) => setTimeout(r, Math.min(5000, 100 * 2 ** attempt)));
    }
  }
  return undefined;
}
