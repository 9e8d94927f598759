import { extractHttpTraceContext, Histogram, LATENCY_BUCKETS, otel, type Metrics } from "@board/service-kit";
import type { IncomingMessage, ServerResponse } from "node:http";
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

/** The code noteErrorCode noted; a response never given express's prototypes (Exchange) has no locals and sent no error body. */
function errorCodeOf(res: ServerResponse): unknown {
  return (res as { locals?: Record<symbol, unknown> }).locals?.[ERROR_CODE];
}

/** Requests that matched no route of the catalogue share one label, so a scan of paths cannot grow the series. */
const UNMATCHED = "unmatched";

/** Runs a request's handling (`next`) inside its telemetry; `template` says at its end which route answered it, if any. */
export type ObserveRequest = (req: IncomingMessage, res: ServerResponse, path: string, template: () => string | undefined, next: () => void) => void;

/**
 * Each request in a SERVER span (active while its handler awaits bus requests, so their
 * CLIENT spans are its children), timed in http_request_duration_seconds by route template,
 * method and status class, its error code counted in errors_total. A caller's traceparent
 * (an ingress, or a client correlating its calls) is continued, as OpenTelemetry's HTTP
 * servers do; with a sampling ratio below 1, a caller that sends a sampled traceparent has
 * its own requests recorded, nothing more. Made once per server: it registers the histogram.
 */
export function requestTelemetry(deps: HttpTelemetryDeps): ObserveRequest {
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to answer an HTTP request, by route template, method and status class",
    labelNames: ["route", "method", "status_class"],
    buckets: LATENCY_BUCKETS,
    registers: [deps.metrics.registry],
  });
  return (req, res, path, template, next) => {
    const started = performance.now();
    // A server's request always has its method.
    const method = req.method!;
    const caller = extractHttpTraceContext(req.headers);
    const span = deps.tracer.startSpan(method, { kind: otel.SpanKind.SERVER, attributes: { "http.request.method": method, "url.path": path } }, caller);
    res.once("close", () => {
      const route = template();
      const label = route ?? UNMATCHED;
      // A response that never finished was abandoned by its client.
      const statusClass = res.writableFinished ? `${Math.floor(res.statusCode / 100)}xx` : "aborted";
      duration.observe({ route: label, method: method, status_class: statusClass }, (performance.now() - started) / 1000);
      const code = errorCodeOf(res);
      if (typeof code === "string") deps.metrics.errors.inc({ code });
      if (!span.isRecording()) return span.end();
      span.updateName(route !== undefined ? `${method} ${route}` : method);
      if (route !== undefined) span.setAttribute("http.route", route);
      span.setAttribute("http.response.status_code", res.statusCode);
      if (typeof code === "string") span.setAttribute("error.type", code);
      if (!res.writableFinished) span.setAttribute("error.type", "client_aborted");
      else if (res.statusCode >= 500) span.setStatus({ code: otel.SpanStatusCode.ERROR, ...(typeof code === "string" ? { message: code } : {}) });
      span.end();
    });
    otel.context.with(otel.trace.setSpan(caller, span), next);
  };
}

/** The first middleware of the express app: every request it routes, matched or not, observed; the route template is the one the router matched. */
export function httpTelemetry(observe: ObserveRequest): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    observe(req, res, req.path, () => {
      const route = (req.route as { path?: unknown } | undefined)?.path;
      return typeof route === "string" ? route : undefined;
    }, next);
  };
}
