import { extractHttpTraceContext, Histogram, LATENCY_BUCKETS, otel, type Metrics } from "@board/service-kit";
import type { NextFunction, Request, RequestHandler, Response } from "express";

export interface HttpTelemetryDeps {
  /** The gateway runtime's tracer. */
  tracer: otel.Tracer;
  metrics: Metrics;
}

const ERROR_CODE = Symbol("error code");

/** Notes the reason code of the error body a response carries (sendError), for errors_total and the span. */
export function noteErrorCode(res: Response, code: string): void {
  (res.locals as Record<symbol, unknown>)[ERROR_CODE] = code;
}

/** Requests that matched no route of the catalogue share one label, so a scan of paths cannot grow the series. */
const UNMATCHED = "unmatched";

/**
 * The first middleware: each request in a SERVER span (active while its handler awaits bus
 * requests, so their CLIENT spans are its children), timed in http_request_duration_seconds
 * by route template, method and status class, its error code counted in errors_total.
 * A caller's traceparent (an ingress, or a client correlating its calls) is continued, as
 * OpenTelemetry's HTTP servers do; with a sampling ratio below 1, a caller that sends a
 * sampled traceparent has its own requests recorded, nothing more.
 */
export function httpTelemetry(deps: HttpTelemetryDeps): RequestHandler {
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to answer an HTTP request, by route template, method and status class",
    labelNames: ["route", "method", "status_class"],
    buckets: LATENCY_BUCKETS,
    registers: [deps.metrics.registry],
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    const caller = extractHttpTraceContext(req.headers);
    const span = deps.tracer.startSpan(req.method, { kind: otel.SpanKind.SERVER, attributes: { "http.request.method": req.method, "url.path": req.path } }, caller);
    res.once("close", () => {
      const route = (req.route as { path?: unknown } | undefined)?.path;
      const template = typeof route === "string" ? route : UNMATCHED;
      // A response that never finished was abandoned by its client.
      const statusClass = res.writableFinished ? `${Math.floor(res.statusCode / 100)}xx` : "aborted";
      duration.observe({ route: template, method: req.method, status_class: statusClass }, (performance.now() - started) / 1000);
      const code = (res.locals as Record<symbol, unknown>)[ERROR_CODE];
      if (typeof code === "string") deps.metrics.errors.inc({ code });
      if (!span.isRecording()) return span.end();
      span.updateName(typeof route === "string" ? `${req.method} ${route}` : req.method);
      if (typeof route === "string") span.setAttribute("http.route", route);
      span.setAttribute("http.response.status_code", res.statusCode);
      if (typeof code === "string") span.setAttribute("error.type", code);
      if (!res.writableFinished) span.setAttribute("error.type", "client_aborted");
      else if (res.statusCode >= 500) span.setStatus({ code: otel.SpanStatusCode.ERROR, ...(typeof code === "string" ? { message: code } : {}) });
      span.end();
    });
    otel.context.with(otel.trace.setSpan(caller, span), next);
  };
}
