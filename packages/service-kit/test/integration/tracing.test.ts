import { busEndpoint } from "@board/proto";
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { sql } from "drizzle-orm";
import { AckPolicy, connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { BaseEnv } from "../../src/env.js";
import { BusError } from "../../src/errors.js";
import { request } from "../../src/request.js";
import { startRuntime, type Runtime } from "../../src/runtime.js";
import { bind } from "../../src/service.js";
import { consumeTraced, publishTraced } from "../../src/stream-tracing.js";
import { exportSpansTo } from "../../src/telemetry.js";
import { freshDatabase, type TestDatabase } from "../../src/testing/database.js";
import { busEnv, testBusOptions, testInfra } from "../../src/testing/inject.js";

// Test-only endpoints under the metering name, served by a runtime that is "metering" here.
const Lookup = busEndpoint("metering", "test_trace_lookup", z.object({ n: z.number() }), z.object({ n: z.number() }));
const Slow = busEndpoint("metering", "test_trace_slow", z.object({ ms: z.number() }), z.object({ ok: z.boolean() }));
const Refuse = busEndpoint("metering", "test_trace_refuse", z.object({}), z.object({ ok: z.boolean() }));
const Boom = busEndpoint("metering", "test_trace_boom", z.object({}), z.object({ ok: z.boolean() }));
const Nobody = busEndpoint("payments", "test_trace_nobody", z.object({}), z.object({}));
const STREAM = "TRACETEST";
const STREAM_SUBJECT = "tracetest.events";

const exporter = new InMemorySpanExporter();
let caller: Runtime<Record<string, never>>;
let callee: Runtime<Record<string, never>>;
let db: TestDatabase;
let plain: NatsConnection;

beforeAll(async () => {
  exportSpansTo(exporter);
  const infra = testInfra();
  db = await freshDatabase(infra.databaseUrl);
  // Services of the test's own, on subjects of its own: the suite's admin credential.
  const env = (extra: Record<string, string> = {}) => BaseEnv.parse({ ...busEnv("admin"), HEALTH_PORT: "0", LOG_LEVEL: "silent", ...extra });
  caller = await startRuntime({ service: "gateway", version: "0.0.0", description: "test caller", env: env() });
  callee = await startRuntime({ service: "metering", version: "0.0.0", description: "test callee", env: env({ DATABASE_URL: db.url }), database: {} });
  const database = callee.database!.db;
  await callee.serve([
    bind(Lookup, async (req) => {
      const result = (await database.execute(sql`select ${req.n}::int + 1 as n`)) as unknown as { rows: { n: unknown }[] };
      return { n: Number(result.rows[0]!.n) };
    }),
    bind(Slow, async (req) => {
      await database.execute(sql`select pg_sleep(${req.ms / 1000})`);
      return { ok: true };
    }),
    bind(Refuse, async () => {
      throw new BusError("rate_limited");
    }),
    bind(Boom, async () => {
      throw new Error("detail that must stay in the log");
    }),
  ]);
  plain = await connect(testBusOptions());
  const jsm = await plain.jetstreamManager();
  await jsm.streams.delete(STREAM).catch(() => false);
  await jsm.streams.add({ name: STREAM, subjects: [STREAM_SUBJECT] });
});
afterAll(async () => {
  if (plain) {
    await (await plain.jetstreamManager()).streams.delete(STREAM).catch(() => false);
    await plain.close();
  }
  await caller?.stop();
  await callee?.stop();
  await db?.drop();
  exportSpansTo(null);
});
beforeEach(() => exporter.reset());

/** Runs `fn` under a root span of the caller's tracer and returns that span. */
async function underRoot(fn: () => Promise<unknown>): Promise<ReadableSpan["spanContext"] extends () => infer C ? C : never> {
  const root = caller.telemetry.tracer.startSpan("root");
  await context.with(trace.setSpan(ROOT_CONTEXT, root), async () => {
    await fn().catch(() => undefined);
  });
  root.end();
  return root.spanContext();
}

const spans = () => exporter.getFinishedSpans();
const serviceOf = (s: ReadableSpan) => s.resource.attributes["service.name"];
const one = (pred: (s: ReadableSpan) => boolean) => {
  const found = spans().filter(pred);
  expect(found, `spans: ${spans().map((s) => `${String(serviceOf(s))}:${s.name}`).join(", ")}`).toHaveLength(1);
  return found[0]!;
};
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

/** The value of the sample of `name` whose labels include `labels`, from Prometheus text. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    const m = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe("trace context across a bus round trip", () => {
  it("makes the handler's SERVER span the child of the caller's CLIENT span, and a query the handler's child", async () => {
    const root = await underRoot(() => request(caller.bus.nc, Lookup, { n: 41 }));
    const client = one((s) => s.kind === SpanKind.CLIENT && s.name === Lookup.subject);
    const server = one((s) => s.kind === SpanKind.SERVER && s.name === Lookup.subject);
    const query = one((s) => s.attributes["db.system.name"] === "postgresql");
    expect(serviceOf(client)).toBe("gateway");
    expect(serviceOf(server)).toBe("metering");
    expect(serviceOf(query)).toBe("metering");
    for (const s of [client, server, query]) expect(s.spanContext().traceId).toBe(root.traceId);
    expect(parentOf(client)).toBe(root.spanId);
    expect(parentOf(server)).toBe(client.spanContext().spanId);
    expect(parentOf(query)).toBe(server.spanContext().spanId);
    expect(query.name).toBe(`SELECT ${new URL(db.url).pathname.slice(1)}`);
    expect(server.attributes).toMatchObject({ "messaging.system": "nats", "messaging.destination.name": Lookup.subject });
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("starts a new trace at the handler when the request carries none", async () => {
    await request(caller.bus.nc, Lookup, { n: 1 });
    const client = one((s) => s.kind === SpanKind.CLIENT && s.name === Lookup.subject);
    const server = one((s) => s.kind === SpanKind.SERVER && s.name === Lookup.subject);
    expect(parentOf(client)).toBeUndefined();
    expect(parentOf(server)).toBe(client.spanContext().spanId);
  });

  it("records a refusal's reason code on both ends without marking a 4xx as a span error", async () => {
    await underRoot(() => request(caller.bus.nc, Refuse, {}));
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const s = one((x) => x.kind === kind && x.name === Refuse.subject);
      expect(s.attributes).toMatchObject({ "error.type": "rate_limited", "board.bus.status_code": 429 });
      expect(s.status.code).toBe(SpanStatusCode.UNSET);
    }
  });

  it("marks an internal failure as a span error on both ends, with its code and never its text", async () => {
    await underRoot(() => request(caller.bus.nc, Boom, {}));
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const s = one((x) => x.kind === kind && x.name === Boom.subject);
      expect(s.attributes).toMatchObject({ "error.type": "internal_error", "board.bus.status_code": 500 });
      expect(s.status.code).toBe(SpanStatusCode.ERROR);
      expect(JSON.stringify(s.attributes) + (s.status.message ?? "")).not.toContain("must stay");
    }
  });

  it("records no responders on the CLIENT span", async () => {
    await underRoot(() => request(caller.bus.nc, Nobody, {}));
    const s = one((x) => x.kind === SpanKind.CLIENT && x.name === Nobody.subject);
    expect(s.attributes).toMatchObject({ "error.type": "service_unavailable", "board.bus.status_code": 503 });
  });

  it("gives a query that waited for a pooled client the parent of its own request", async () => {
    // The pool holds 10 clients: 12 slow queries at once make two wait for a client another request releases.
    const roots = await Promise.all(Array.from({ length: 12 }, () => underRoot(() => request(caller.bus.nc, Slow, { ms: 150 }))));
    const servers = spans().filter((s) => s.kind === SpanKind.SERVER && s.name === Slow.subject);
    const queries = spans().filter((s) => s.attributes["db.system.name"] === "postgresql");
    expect(servers).toHaveLength(12);
    expect(queries).toHaveLength(12);
    // Each handler is the parent of exactly its own query: none adopted by whichever request released the client.
    expect(new Set(queries.map(parentOf))).toEqual(new Set(servers.map((s) => s.spanContext().spanId)));
    expect(new Set(queries.map((q) => q.spanContext().traceId))).toEqual(new Set(roots.map((r) => r.traceId)));
  });

  it("times each round trip in bus_round_trip_seconds by subject and outcome", async () => {
    await request(caller.bus.nc, Lookup, { n: 2 });
    await request(caller.bus.nc, Refuse, {}).catch(() => undefined);
    const text = await caller.metrics.registry.metrics();
    expect(sample(text, "bus_round_trip_seconds_count", { subject: Lookup.subject, outcome: "ok", service: "gateway" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "bus_round_trip_seconds_count", { subject: Refuse.subject, outcome: "rate_limited", service: "gateway" })).toBeGreaterThanOrEqual(1);
  });
});

describe("trace context across JetStream", () => {
  it("makes the consumer's CONSUMER span the child of the publisher's PRODUCER span", async () => {
    const root = await underRoot(() => publishTraced(caller.bus.nc, STREAM_SUBJECT, new TextEncoder().encode("{}")));
    const js = plain.jetstream();
    const jsm = await plain.jetstreamManager();
    await jsm.consumers.add(STREAM, { durable_name: "t", ack_policy: AckPolicy.Explicit });
    const m = await (await js.consumers.get(STREAM, "t")).next({ expires: 2000 });
    expect(m).not.toBeNull();
    await consumeTraced(callee.bus.nc, m!, async () => {
      // Work done while consuming joins the publisher's trace.
      await request(callee.bus.nc, Lookup, { n: 0 });
    });
    m!.ack();
    const producer = one((s) => s.kind === SpanKind.PRODUCER);
    const consumer = one((s) => s.kind === SpanKind.CONSUMER);
    expect(producer.name).toBe(`publish ${STREAM_SUBJECT}`);
    expect(consumer.name).toBe(`process ${STREAM_SUBJECT}`);
    expect(serviceOf(producer)).toBe("gateway");
    expect(serviceOf(consumer)).toBe("metering");
    expect(parentOf(producer)).toBe(root.spanId);
    expect(parentOf(consumer)).toBe(producer.spanContext().spanId);
    const lookup = one((s) => s.kind === SpanKind.CLIENT && s.name === Lookup.subject);
    expect(parentOf(lookup)).toBe(consumer.spanContext().spanId);
    expect(lookup.spanContext().traceId).toBe(root.traceId);
  });
});
