import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { context, ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { BaseEnv } from "../src/env.js";
import { createLogger } from "../src/log.js";
import { exportSpansTo, startTelemetry } from "../src/telemetry.js";

const silent = createLogger("test", "silent", "t");
const env = (extra: Record<string, string> = {}) => BaseEnv.parse({ HEALTH_PORT: "0", ...extra });
const start = (service: string, extra: Record<string, string> = {}) => startTelemetry({ service, version: "1.2.3", instance: `${service}-1`, env: env(extra), log: silent });

afterEach(() => exportSpansTo(null));

describe("telemetry configuration", () => {
  it("reads the OTEL_* variables of the common environment", () => {
    expect(env()).toMatchObject({ OTEL_TRACES_SAMPLER_ARG: 1, OTEL_SDK_DISABLED: false });
    expect(env().OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(env({ OTEL_EXPORTER_OTLP_ENDPOINT: "" }).OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(env({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SERVICE_NAME: "edge", OTEL_TRACES_SAMPLER_ARG: "0.25" })).toMatchObject({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_SERVICE_NAME: "edge",
      OTEL_TRACES_SAMPLER_ARG: 0.25,
    });
    expect(BaseEnv.safeParse({ HEALTH_PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }).success).toBe(false);
    expect(BaseEnv.safeParse({ HEALTH_PORT: "0", OTEL_TRACES_SAMPLER_ARG: "2" }).success).toBe(false);
  });

  it("is off without an exporter, or with OTEL_SDK_DISABLED: no spans, no ids", async () => {
    for (const t of [start("metering"), start("identity", { OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })]) {
      expect(t.mode).toBe("off");
      const span = t.tracer.startSpan("x");
      expect(span.isRecording()).toBe(false);
      expect(span.spanContext().traceId).toBe("0".repeat(32));
      // A caller's context still passes through untouched.
      const caller = trace.setSpanContext(ROOT_CONTEXT, { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: TraceFlags.SAMPLED });
      expect(t.tracer.startSpan("y", {}, caller).spanContext().spanId).toBe("00f067aa0ba902b7");
      await t.shutdown();
    }
    expect(env({ OTEL_SDK_DISABLED: "false" }).OTEL_SDK_DISABLED).toBe(false);
    expect(BaseEnv.safeParse({ HEALTH_PORT: "0", OTEL_SDK_DISABLED: "maybe" }).success).toBe(false);
  });

  it("gives each runtime its own service name on a shared exporter", async () => {
    const exporter = new InMemorySpanExporter();
    exportSpansTo(exporter);
    const a = start("identity");
    const b = start("board", { OTEL_SERVICE_NAME: "board-eu" });
    expect(a.mode).toBe("export");
    a.tracer.startSpan("from-identity").end();
    b.tracer.startSpan("from-board").end();
    const names = Object.fromEntries(exporter.getFinishedSpans().map((s) => [s.name, s.resource.attributes]));
    expect(names["from-identity"]).toMatchObject({ "service.name": "identity", "service.version": "1.2.3", "service.instance.id": "identity-1" });
    expect(names["from-board"]).toMatchObject({ "service.name": "board-eu" });
    // One runtime stopping leaves the shared exporter to the others.
    await a.shutdown();
    b.tracer.startSpan("after").end();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain("after");
    await b.shutdown();
  });

  it("samples new traces by the ratio and always continues a sampled caller's trace", async () => {
    const exporter = new InMemorySpanExporter();
    exportSpansTo(exporter);
    const t = start("payments", { OTEL_TRACES_SAMPLER_ARG: "0" });
    expect(t.tracer.startSpan("root").isRecording()).toBe(false);
    const caller = trace.setSpanContext(ROOT_CONTEXT, { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: TraceFlags.SAMPLED, isRemote: true });
    expect(t.tracer.startSpan("child", {}, caller).isRecording()).toBe(true);
    await t.shutdown();
  });

  it("sends spans over OTLP/HTTP to <endpoint>/v1/traces", async () => {
    const received: { path: string; type: string; bytes: number }[] = [];
    const collector = http.createServer((req, res) => {
      let bytes = 0;
      req.on("data", (c: Buffer) => (bytes += c.length));
      req.on("end", () => {
        received.push({ path: req.url ?? "", type: req.headers["content-type"] ?? "", bytes });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r));
    try {
      const t = start("gateway", { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}/` });
      expect(t.mode).toBe("export");
      t.tracer.startSpan("sent").end();
      await t.shutdown();
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ path: "/v1/traces" });
      expect(received[0]!.bytes).toBeGreaterThan(0);
    } finally {
      collector.close();
    }
  });
});

describe("log correlation", () => {
  it("writes trace_id and span_id on lines logged inside a span, and none outside", async () => {
    exportSpansTo(new InMemorySpanExporter());
    const t = start("board");
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const log = createLogger("board", "info", "b-1", sink);
    const span = t.tracer.startSpan("handler");
    await context.with(trace.setSpan(ROOT_CONTEXT, span), async () => {
      await new Promise((r) => setTimeout(r, 1));
      // After an await: the active span followed the async call (AsyncLocalStorage).
      log.info("inside");
    });
    log.info("outside");
    expect(lines[0]).toMatchObject({ msg: "inside", trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
    expect(lines[1]).toMatchObject({ msg: "outside" });
    expect(lines[1]).not.toHaveProperty("trace_id");
    await t.shutdown();
  });
});
