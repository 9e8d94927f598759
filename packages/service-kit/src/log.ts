import { context, isSpanContextValid, trace } from "@opentelemetry/api";
import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";

export type { Logger };

/** Header and field names whose values must never reach a log line. */
const REDACT = [
  "req.headers.authorization",
  "req.headers.x-license-key",
  "req.headers.x-board-key",
  "req.headers.payment-signature",
  "req.headers.x-payment",
  "req.headers.sign-in-with-x",
  "*.password",
  "*.secret",
  "*.key",
  "*.email",
  "databaseUrl",
];

/** A service's logger: JSON lines on stdout unless `destination` says otherwise (tests). */
export function createLogger(service: string, level: string, instance: string, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service, instance },
    redact: { paths: REDACT, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceFields,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Every line written inside a span names its trace and span, so a trace's log lines can be found. */
function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const sc = span.spanContext();
  return isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
}

/** A postgres URL with its password removed, for log lines. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "[unparseable url]";
  }
}
