import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { context, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type OpenDatabase } from "../src/db.js";
import { BaseEnv } from "../src/env.js";
import { createLogger } from "../src/log.js";
import { exportSpansTo, startTelemetry, type Telemetry } from "../src/telemetry.js";

const exporter = new InMemorySpanExporter();
let telemetry: Telemetry;
let database: OpenDatabase<Record<string, never>>;
let dir: string;

beforeAll(async () => {
  exportSpansTo(exporter);
  const log = createLogger("metering", "silent", "t");
  telemetry = startTelemetry({ service: "metering", version: "0", instance: "t", env: BaseEnv.parse({ HEALTH_PORT: "0" }), log });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "db-tracing-"));
  database = await openDatabase({ service: "metering", url: undefined, dataDir: dir, log, tracer: telemetry.tracer });
});
afterAll(async () => {
  await database.close();
  await telemetry.shutdown();
  exportSpansTo(null);
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => exporter.reset());

/** Runs `fn` inside a recorded span, as a bus handler does, and returns that span's id. */
async function inHandler(fn: () => Promise<unknown>): Promise<string> {
  const span = telemetry.tracer.startSpan("metering.v1.consume", { kind: SpanKind.SERVER });
  // Awaited inside the span: a drizzle query is lazy and runs where it is awaited, as in a handler.
  await context.with(trace.setSpan(ROOT_CONTEXT, span), async () => {
    await fn().catch(() => undefined);
  });
  span.end();
  return span.spanContext().spanId;
}

const querySpans = () => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);

describe("database query spans (embedded PGlite)", () => {
  it("makes a query inside a handler's span its child, with the query's text and operation", async () => {
    const handler = await inHandler(() => database.db.execute(sql`select ${1}::int as one`));
    const [q, ...rest] = querySpans();
    expect(rest).toEqual([]);
    expect(q!.parentSpanContext?.spanId).toBe(handler);
    expect(q!.name).toBe("SELECT metering");
    expect(q!.attributes).toMatchObject({ "db.system.name": "pglite", "db.operation.name": "SELECT", "db.namespace": "metering" });
    expect(q!.attributes["db.query.text"]).toBe("select $1::int as one");
  });

  it("traces the queries of a transaction", async () => {
    const handler = await inHandler(() =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        await tx.execute(sql`select 2`);
      }),
    );
    const spans = querySpans();
    expect(spans.filter((s) => s.name === "SELECT metering")).toHaveLength(2);
    for (const s of spans) expect(s.parentSpanContext?.spanId).toBe(handler);
  });

  it("marks a failed query with its SQLSTATE, never its message", async () => {
    await inHandler(() => database.db.execute(sql`select * from no_such_table`));
    const [q] = querySpans();
    expect(q!.status.code).toBe(2);
    expect(q!.attributes["error.type"]).toBe("42P01");
  });

  it("makes no span for a query outside any span (start-up, timers)", async () => {
    await database.db.execute(sql`select 1`);
    expect(querySpans()).toEqual([]);
  });
});
