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

/**
 * Any http(s) or ws(s) URL in text. RPC and vendor URLs carry the provider's API key in their
 * path, query or user part, and the libraries that call them (viem above all) put the URL in
 * their errors' messages: such a URL is dropped whole, its origin included.
 */
const URL_IN_TEXT = /\b(?:https?|wss?):\/\/[^\s"'<>`]*/gi;
export const URL_REDACTED = "[url]";
export const stripUrls = (text: string): string => text.replace(URL_IN_TEXT, URL_REDACTED);

/** Fields whose value is an address itself (viem's HttpRequestError.url, a fallback transport's urls). */
const URL_FIELDS = new Set(["url", "urls"]);
const DETAILS_OMITTED = "[omitted]";
/** Nested errors are followed this deep (cause chains, AggregateError's errors). */
const MAX_ERROR_DEPTH = 5;

/**
 * An error as a log line may carry it: its type, message, stack, code, status, reason and
 * the short text fields viem adds (shortMessage, details, metaMessages), every URL in them
 * stripped, url/urls dropped, causes followed; objects it holds (a request body, headers)
 * are left out.
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (typeof err === "string") return stripUrls(err);
  if (err === null || typeof err !== "object") return err;
  if (depth >= MAX_ERROR_DEPTH) return "[error nested too deep]";
  const source = err as Record<string, unknown>;
  // viem's details is the remote's own answer (a provider's error text may echo the path, and so the key): never logged.
  const details = typeof source["details"] === "string" && source["details"] !== "" ? source["details"] : null;
  const clean = (text: string) => stripUrls(details ? text.split(details).join(DETAILS_OMITTED) : text);
  const out: Record<string, unknown> = {};
  if (err instanceof Error) {
    out["type"] = err.name;
    out["message"] = clean(err.message);
    if (err.stack) out["stack"] = clean(err.stack);
  }
  for (const [k, v] of Object.entries(source)) {
    if (URL_FIELDS.has(k)) out[k] = URL_REDACTED;
    else if (k === "details") out[k] = DETAILS_OMITTED;
    else if (k === "message" || k === "stack") continue;
    else if (k === "cause") out[k] = serializeError(v, depth + 1);
    else if (k === "errors" && Array.isArray(v)) out[k] = v.slice(0, 10).map((e) => serializeError(e, depth + 1));
    else if (k === "metaMessages" && Array.isArray(v)) out[k] = v.map((m) => (typeof m === "string" ? clean(m) : DETAILS_OMITTED));
    else if (typeof v === "string") out[k] = clean(v);
    else if (typeof v === "number" || typeof v === "boolean" || v === null) out[k] = v;
    else if (typeof v === "bigint") out[k] = v.toString();
  }
  // An Error's cause is not enumerable when set through the constructor's options.
  if (err instanceof Error && !("cause" in out) && err.cause !== undefined) out["cause"] = serializeError(err.cause, depth + 1);
  return out;
}

/** A log line's own fields: url/urls dropped wherever a caller put them at the top. */
function redactUrlFields(obj: Record<string, unknown>): Record<string, unknown> {
  let out = obj;
  for (const k of URL_FIELDS) if (k in obj) out = { ...out, [k]: URL_REDACTED };
  return out;
}

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
    serializers: { err: serializeError, error: serializeError, cause: serializeError },
    formatters: { log: redactUrlFields },
    hooks: {
      // The message text too: a caller may have written an error's message into it.
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === "string" ? stripUrls(a) : a)) as Parameters<typeof method>);
      },
    },
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
