import { BUS_STREAMS, SERIES_STREAM, SERIES_SUBJECTS, SERVED_READ_SUBJECT, SERVED_READS_STREAM, SNAPSHOT_STREAM, SNAPSHOT_SUBJECT } from "@board/proto";
import { DiscardPolicy, nanos, RetentionPolicy, StorageType, type NatsConnection, type StreamConfig, type StreamInfo } from "nats";
import type { Logger } from "./log.js";

export type BusStreamConfig = Partial<StreamConfig> & { name: string; subjects: string[] };

/** The BOARD stream: every published snapshot, kept long enough for any replica to catch up. */
export const SNAPSHOT_STREAM_CONFIG: BusStreamConfig = {
  name: SNAPSHOT_STREAM,
  subjects: [SNAPSHOT_SUBJECT],
  retention: RetentionPolicy.Limits,
  storage: StorageType.File,
  discard: DiscardPolicy.Old,
  max_age: nanos(30 * 24 * 3600 * 1000),
  max_msgs: 20_000,
  max_msg_size: 1024 * 1024,
  // A snapshot is published with its content hash as the message id: a retry is not a second snapshot.
  duplicate_window: nanos(10 * 60 * 1000),
};

/**
 * The READS stream: one small message per served read, published by the gateway. Kept a
 * week (or 1 GiB, the oldest going first), far longer than metering needs to fold it in,
 * so a metering outage of days loses no count.
 */
export const SERVED_READS_STREAM_CONFIG: BusStreamConfig = {
  name: SERVED_READS_STREAM,
  subjects: [SERVED_READ_SUBJECT],
  retention: RetentionPolicy.Limits,
  storage: StorageType.File,
  discard: DiscardPolicy.Old,
  max_age: nanos(7 * 24 * 3600 * 1000),
  max_bytes: 1024 ** 3,
  max_msg_size: 4096,
};

/**
 * The SERIES stream: one message per name and session (the last board of a session wins), about
 * 12 MB a session. Kept a week, past the longest market closure, so the delayed board's series is
 * there after any restart; capped at 256 MiB, the oldest sessions going first.
 */
export const SERIES_STREAM_CONFIG: BusStreamConfig = {
  name: SERIES_STREAM,
  subjects: [SERIES_SUBJECTS],
  retention: RetentionPolicy.Limits,
  storage: StorageType.File,
  discard: DiscardPolicy.Old,
  max_age: nanos(7 * 24 * 3600 * 1000),
  max_bytes: 256 * 1024 ** 2,
  max_msgs_per_subject: 1,
  max_msg_size: 64 * 1024,
};

/** The configuration of every stream proto's catalogue (BUS_STREAMS) declares. */
export const BUS_STREAM_CONFIGS: Readonly<Record<string, BusStreamConfig>> = {
  [SNAPSHOT_STREAM]: SNAPSHOT_STREAM_CONFIG,
  [SERVED_READS_STREAM]: SERVED_READS_STREAM_CONFIG,
  [SERIES_STREAM]: SERIES_STREAM_CONFIG,
};

export interface EnsuredStream {
  stream: string;
  outcome: "created" | "updated";
}

/**
 * The deploy step: creates every stream of the catalogue, or brings an existing one to its
 * configuration. Idempotent. Run with the operator's credential (`npm run bus-streams`, the
 * compose and Kubernetes jobs, the launcher, the test harnesses): services hold no right to
 * create or update a stream, only to use one.
 */
export async function ensureBusStreams(nc: NatsConnection): Promise<EnsuredStream[]> {
  const jsm = await nc.jetstreamManager();
  const out: EnsuredStream[] = [];
  for (const name of BUS_STREAMS) {
    const config = BUS_STREAM_CONFIGS[name];
    if (!config) throw new Error(`stream ${name} is in BUS_STREAMS but has no configuration in BUS_STREAM_CONFIGS`);
    try {
      await jsm.streams.info(name);
      await jsm.streams.update(name, config);
      out.push({ stream: name, outcome: "updated" });
    } catch (e) {
      if ((e as { code?: string }).code !== "404") throw e;
      await jsm.streams.add(config);
      out.push({ stream: name, outcome: "created" });
    }
  }
  return out;
}

/** Thrown by awaitStream when it is told to stop before the stream appears. */
export class StreamWaitAborted extends Error {
  override readonly name = "StreamWaitAborted";
}

/**
 * A stream a service uses but does not create: its info once it exists. While it is missing
 * (the deploy step has not run yet) the service says so and asks again, backing off to 5 s,
 * rather than failing: a stream made a moment later is found without a restart.
 */
export async function awaitStream(nc: NatsConnection, stream: string, opts: { log: Logger; signal?: AbortSignal; maxDelayMs?: number }): Promise<StreamInfo> {
  const jsm = await nc.jetstreamManager();
  for (let attempt = 0; ; attempt++) {
    if (opts.signal?.aborted) throw new StreamWaitAborted(`stopped while waiting for stream ${stream}`);
    try {
      return await jsm.streams.info(stream);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === "404")
        opts.log.error({ stream, attempt }, `stream ${stream} does not exist: the deploy step creates it (npm run bus-streams, as the operator); waiting`);
      else opts.log.error({ stream, attempt, err: (e as Error).message }, `stream ${stream} cannot be read yet; retrying`);
    }
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, Math.min(opts.maxDelayMs ?? 5000, 100 * 2 ** attempt));
      opts.signal?.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
    });
  }
}
