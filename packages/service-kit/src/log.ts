import { context, isSpanContextValid, trace } from "@opentelemetry/api";
import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { PinoPretty } from "pino-pretty";

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

/** JSON lines for machines (collectors, CI), or one readable line per event for a person at a terminal. */
export type LogFormat = "json" | "pretty";

/** Unset: pretty when stdout is a terminal, JSON otherwise. */
export function logFormatOf(configured: LogFormat | undefined): LogFormat {
  return configured ?? (process.stdout.isTTY ? "pretty" : "json");
}

/**
 * A service's logger: JSON lines on stdout, or readable lines with `format` "pretty" (written
 * synchronously in this thread: no transport worker per service); `destination` for tests.
 */
export function createLogger(service: string, level: string, instance: string, destination?: DestinationStream, format: LogFormat = "json"): Logger {
  const options: LoggerOptions = {
    level,
    base: { service, instance },
    redact: { paths: REDACT, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceFields,
  };
  if (destination) return pino(options, destination);
  if (format === "pretty") {
    const pretty = PinoPretty({ sync: true, colorize: process.stdout.isTTY === true, translateTime: "HH:MM:ss", ignore: "pid,hostname,instance", messageFormat: "{service}: {msg}", hideObject: false });
    return pino({ ...options, base: { service } }, pretty);
  }
  return pino(options);
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
