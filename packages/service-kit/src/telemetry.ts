import { context, ProxyTracerProvider, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { setGlobalErrorHandler } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
// The trace SDK's own packages, not sdk-node: that umbrella also loads every metrics, logs and gRPC
// exporter (about 0.4 s of each service's start) for a provider this code builds by hand.
import { resourceFromAttributes } from "@opentelemetry/resources";
import * as tracing from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import type { BaseEnv } from "./env.js";
import type { Logger } from "./log.js";

/** The OpenTelemetry API, for services: they depend on the kit, not on OpenTelemetry's packages. */
export * as otel from "@opentelemetry/api";

/** The tracer provider of one runtime, and how it was configured. */
export interface Telemetry {
  readonly tracer: Tracer;
  /**
   * "export": spans are recorded and sent (OTLP, or a test's exporter); log lines carry
   * trace_id and span_id. "off": no exporter (or OTEL_SDK_DISABLED), so no tracing at all:
   * no spans, no context passed on, no ids in logs.
   */
  readonly mode: "export" | "off";
  /** Sends what is buffered and stops the provider. */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  service: string;
  version: string;
  instance: string;
  env: Pick<BaseEnv, "OTEL_EXPORTER_OTLP_ENDPOINT" | "OTEL_SERVICE_NAME" | "OTEL_TRACES_SAMPLER_ARG" | "OTEL_SDK_DISABLED">;
  log: Logger;
}

/** A tracer that records nothing and passes a parent's span context through: for code given no runtime. */
export const NO_TRACER: Tracer = new ProxyTracerProvider().getTracer("none");

const SCOPE = "@board/service-kit";

/**
 * One provider per runtime, never the global one: tests run several services in one process,
 * and each service's spans must carry its own service.name. The tracer is passed explicitly
 * (the bus connection, the handler wrapper, the database layer, the gateway's middleware).
 */
export function startTelemetry(opts: TelemetryOptions): Telemetry {
  const exporter = testExporter ? sharedExporter(testExporter) : opts.env.OTEL_SDK_DISABLED ? null : otlpExporter(opts.env.OTEL_EXPORTER_OTLP_ENDPOINT, opts.log);
  // With nowhere to send spans, keeping them only for trace ids in logs was measured at
  // a sixth to a quarter more CPU on a cheap read: tracing is off instead.
  if (!exporter) return { tracer: NO_TRACER, mode: "off", shutdown: async () => undefined };
  useAsyncContext();
  const processor: tracing.SpanProcessor = testExporter ? new tracing.SimpleSpanProcessor(exporter) : new tracing.BatchSpanProcessor(exporter);
  // Node's tracer provider, never registered as the global one (see above).
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: opts.env.OTEL_SERVICE_NAME ?? opts.service,
      [ATTR_SERVICE_VERSION]: opts.version,
      // service.instance.id (incubating in semantic-conventions, so spelled out here).
      "service.instance.id": opts.instance,
    }),
    // A caller's decision is kept (its trace stays whole); new traces are sampled by the ratio.
    sampler: new tracing.ParentBasedSampler({ root: new tracing.TraceIdRatioBasedSampler(opts.env.OTEL_TRACES_SAMPLER_ARG) }),
    spanProcessors: [processor],
  });
  return { tracer: provider.getTracer(SCOPE), mode: "export", shutdown: () => provider.shutdown() };
}

function otlpExporter(endpoint: string | undefined, log: Logger): tracing.SpanExporter | null {
  if (!endpoint) return null;
  reportExportFailuresTo(log);
  return new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` });
}

let errorsReported = false;
/** An unreachable collector must not go unnoticed, nor flood the log: one warning a minute at most. */
function reportExportFailuresTo(log: Logger): void {
  if (errorsReported) return;
  errorsReported = true;
  let last = 0;
  setGlobalErrorHandler((err) => {
    const now = Date.now();
    if (now - last < 60_000) return;
    last = now;
    log.warn({ err }, "trace export failed; spans are being dropped");
  });
}

let asyncContext = false;
/** The active span follows async calls (AsyncLocalStorage): one context manager per process, set once. */
function useAsyncContext(): void {
  if (asyncContext) return;
  asyncContext = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

let testExporter: tracing.SpanExporter | null = null;

/**
 * Every runtime started after this call sends its spans to `exporter` (synchronously, one
 * span at a time), whatever its environment says; null gives the environment back. For
 * tests, which start several services in one process and read their spans from one place.
 */
export function exportSpansTo(exporter: tracing.SpanExporter | null): void {
  testExporter = exporter;
}

/** A runtime stopping must not shut down an exporter other runtimes still use. */
function sharedExporter(exporter: tracing.SpanExporter): tracing.SpanExporter {
  return {
    export: (spans, done) => exporter.export(spans, done),
    shutdown: async () => undefined,
    forceFlush: async () => {
      await exporter.forceFlush?.();
    },
  };
}
