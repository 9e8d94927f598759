import type { NatsConnection } from "nats";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { instrumentBus } from "../src/bus-instruments.js";
import { consumerLag } from "../src/consumer-lag.js";
import { instrumentPool, timeoutKindOf } from "../src/db-metrics.js";
import { gaugeKeyRotation } from "../src/key-rotation-metrics.js";
import { createMetrics, type Metrics } from "../src/metrics.js";
import { NO_TRACER } from "../src/telemetry.js";

const err = (message: string, props: Record<string, unknown> = {}) => Object.assign(new Error(message), props);

/** The samples of one metric, as `name{labels} value` lines without the service's own label (prom-client writes NaN as "Nan"). */
async function samples(metrics: Metrics, name: string): Promise<string[]> {
  const text = await metrics.registry.getSingleMetricAsString(name);
  return text
    .split("\n")
    .filter((l) => l.startsWith(name) && !l.startsWith("#"))
    .map((l) => l.replace(/,?service="[^"]*"/, "").replace("{,", "{").replace("{}", ""));
}

describe("db_timeouts_total's kinds", () => {
  it("tells each bound of db.ts, through drizzle's cause", () => {
    expect(timeoutKindOf(err("canceling statement due to statement timeout", { code: "57014" }))).toBe("statement");
    expect(timeoutKindOf(err("Failed query", { cause: err("canceling statement", { code: "57014" }) }))).toBe("statement");
    expect(timeoutKindOf(err("terminating connection due to idle-in-transaction timeout", { code: "25P03" }))).toBe("idle_in_transaction");
    expect(timeoutKindOf(err("Failed query", { cause: err("Query read timeout") }))).toBe("query_read");
    expect(timeoutKindOf(err("timeout exceeded when trying to connect"))).toBe("acquire");
    expect(timeoutKindOf(err("Connection terminated due to connection timeout"))).toBe("acquire");
  });
  it("counts nothing else", () => {
    expect(timeoutKindOf(err("duplicate key value", { code: "23505" }))).toBeNull();
    expect(timeoutKindOf(err("connect ECONNREFUSED", { code: "ECONNREFUSED" }))).toBeNull();
    expect(timeoutKindOf(undefined)).toBeNull();
  });
});

describe("the pool's gauges", () => {
  it("read the pool at scrape time and count a connection not given in time", async () => {
    const metrics = createMetrics("board");
    const pool = {
      totalCount: 7,
      idleCount: 2,
      waitingCount: 3,
      connect: (cb?: (e: Error | undefined) => void) => (cb ? cb(err("timeout exceeded when trying to connect")) : Promise.reject(err("timeout exceeded when trying to connect"))),
    };
    const instruments = instrumentPool(pool as unknown as pg.Pool, 10, metrics);
    await expect((pool as unknown as pg.Pool).connect()).rejects.toThrow("timeout exceeded");
    (pool as unknown as { connect(cb: () => void): void }).connect(() => undefined);
    instruments.onError(err("canceling statement", { code: "57014" }));
    instruments.onError(err("syntax error", { code: "42601" }));
    expect(await samples(metrics, "db_pool_connections")).toEqual(["db_pool_connections 7"]);
    expect(await samples(metrics, "db_pool_idle_connections")).toEqual(["db_pool_idle_connections 2"]);
    expect(await samples(metrics, "db_pool_waiting_clients")).toEqual(["db_pool_waiting_clients 3"]);
    expect(await samples(metrics, "db_pool_max_connections")).toEqual(["db_pool_max_connections 10"]);
    expect(await samples(metrics, "db_timeouts_total")).toEqual([
      'db_timeouts_total{kind="statement"} 1',
      'db_timeouts_total{kind="idle_in_transaction"} 0',
      'db_timeouts_total{kind="query_read"} 0',
      'db_timeouts_total{kind="acquire"} 2',
    ]);
  });
});

describe("jetstream_consumer_lag_messages", () => {
  function fakeBus(lastSeq: () => number, up: () => boolean) {
    const nc = {
      isClosed: () => false,
      jetstreamManager: async () => ({ streams: { info: async () => ({ state: { last_seq: lastSeq() } }) } }),
    } as unknown as NatsConnection;
    const metrics = createMetrics("board");
    instrumentBus(nc, { tracer: NO_TRACER, metrics, connected: up });
    return { nc, metrics };
  }

  it("is the stream's last sequence minus the last one processed, asked at scrape time", async () => {
    let last = 10;
    const { nc, metrics } = fakeBus(() => last, () => true);
    const progress = consumerLag(nc, "BOARD");
    expect(await samples(metrics, "jetstream_consumer_lag_messages")).toEqual(['jetstream_consumer_lag_messages{stream="BOARD"} Nan']);
    progress.processed(7);
    expect(await samples(metrics, "jetstream_consumer_lag_messages")).toEqual(['jetstream_consumer_lag_messages{stream="BOARD"} 3']);
    last = 12;
    progress.processed(12);
    expect(await samples(metrics, "jetstream_consumer_lag_messages")).toEqual(['jetstream_consumer_lag_messages{stream="BOARD"} 0']);
  });

  it("says NaN, never a false 0, while the bus is down; a reader started again takes its stream over", async () => {
    let up = false;
    const { nc, metrics } = fakeBus(() => 20, () => up);
    consumerLag(nc, "READS").processed(5);
    expect(await samples(metrics, "jetstream_consumer_lag_messages")).toEqual(['jetstream_consumer_lag_messages{stream="READS"} Nan']);
    up = true;
    consumerLag(nc, "READS").processed(18);
    expect(await samples(metrics, "jetstream_consumer_lag_messages")).toEqual(['jetstream_consumer_lag_messages{stream="READS"} 2']);
  });

  it("measures nothing on a connection no runtime owns", () => {
    expect(() => consumerLag({} as NatsConnection, "BOARD").processed(1)).not.toThrow();
  });
});

describe("signing_key_*", () => {
  it("say the rotation's schedule in seconds, and nothing before a key exists", async () => {
    const metrics = createMetrics("identity");
    let state: Parameters<typeof gaugeKeyRotation>[2] = () => null;
    gaugeKeyRotation(metrics, "access_token", () => state());
    expect(await samples(metrics, "signing_key_rotation_due_timestamp_seconds")).toEqual([]);
    state = () => ({ signingSince: new Date(1000_000), rotationDueAt: new Date(2000_000), successorDueAt: new Date(1900_000), successorPublished: true });
    expect(await samples(metrics, "signing_key_signing_since_timestamp_seconds")).toEqual(['signing_key_signing_since_timestamp_seconds{key="access_token"} 1000']);
    expect(await samples(metrics, "signing_key_rotation_due_timestamp_seconds")).toEqual(['signing_key_rotation_due_timestamp_seconds{key="access_token"} 2000']);
    expect(await samples(metrics, "signing_key_successor_due_timestamp_seconds")).toEqual(['signing_key_successor_due_timestamp_seconds{key="access_token"} 1900']);
    expect(await samples(metrics, "signing_key_successor_published")).toEqual(['signing_key_successor_published{key="access_token"} 1']);
  });
});
