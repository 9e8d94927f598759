import type { NatsConnection } from "nats";
import type { Registry } from "prom-client";
import { busInstrumentsOf } from "./bus-instruments.js";
import { Gauge } from "./metrics.js";

/** A stream info ask at scrape time gives up after this: a scrape must not wait on a slow bus. */
const INFO_TIMEOUT_MS = 1000;

/** What one replica has processed of one stream, told by its reader. */
export interface ConsumerProgress {
  /** The stream sequence processed last (stored, counted or skipped); the reader goes on after it. */
  processed(seq: number): void;
}

interface Tracked {
  nc: NatsConnection;
  seq: number | null;
}

const byRegistry = new WeakMap<Registry, Map<string, Tracked>>();

/**
 * jetstream_consumer_lag_messages{stream}: messages in a stream past the last one this replica
 * processed, asked of the stream at scrape time, so a reader that stopped (a stuck database, a
 * consumer the bus dropped) shows as lag growing while the stream grows. The readers are
 * ordered consumers with generated names that change on every reconnect, so the lag is said
 * by the service rather than by a NATS exporter's per-consumer figures. On the registry of the
 * runtime that owns `nc`; a connection no runtime instrumented (a test's) measures nothing.
 */
export function consumerLag(nc: NatsConnection, stream: string): ConsumerProgress {
  const registry = busInstrumentsOf(nc).metrics?.registry;
  if (!registry) return { processed: () => undefined };
  let streams = byRegistry.get(registry);
  if (!streams) {
    const tracked = (streams = new Map());
    byRegistry.set(registry, tracked);
    new Gauge({
      name: "jetstream_consumer_lag_messages",
      help: "Messages of a JetStream stream this replica has not yet processed (the stream's last sequence minus the last one processed), at scrape time",
      labelNames: ["stream"],
      registers: [registry],
      async collect() {
        this.reset();
        await Promise.all([...tracked].map(async ([name, t]) => this.set({ stream: name }, await lagOf(name, t))));
      },
    });
  }
  // A reader started again (a reconnect, a stream made anew) takes over its stream's entry.
  const entry: Tracked = { nc, seq: null };
  streams.set(stream, entry);
  return { processed: (seq) => void (entry.seq = seq) };
}

/** NaN while it cannot be told (nothing read yet, the bus down, the stream unreadable): never a false 0. */
async function lagOf(stream: string, t: Tracked): Promise<number> {
  if (t.seq === null || t.nc.isClosed() || busInstrumentsOf(t.nc).connected?.() === false) return NaN;
  try {
    const jsm = await t.nc.jetstreamManager({ timeout: INFO_TIMEOUT_MS, checkAPI: false });
    const info = await jsm.streams.info(stream);
    return Math.max(0, info.state.last_seq - t.seq);
  } catch {
    return NaN;
  }
}
