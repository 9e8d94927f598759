import { ROOT_CONTEXT, trace, isSpanContextValid, type Context, type TextMapGetter, type TextMapSetter } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { MsgHdrs } from "nats";

/**
 * W3C trace context (traceparent, tracestate) carried in NATS message headers. Our own
 * propagator instance, not the global one: nothing here depends on what another library
 * registered process-wide.
 */
const propagator = new W3CTraceContextPropagator();

const setter: TextMapSetter<MsgHdrs> = { set: (h, key, value) => h.set(key, value) };

const getter: TextMapGetter<MsgHdrs | undefined> = {
  // nats.js answers "" for a header that is absent.
  get: (h, key) => h?.get(key) || undefined,
  keys: (h) => h?.keys() ?? [],
};

/** Node's incoming HTTP headers: lower-case names, a repeated header as a list. */
type HttpHeaders = Record<string, string | string[] | undefined>;

const httpGetter: TextMapGetter<HttpHeaders> = {
  get: (h, key) => h[key.toLowerCase()],
  keys: (h) => Object.keys(h),
};

/** The header names trace context travels in. */
export const TRACE_HEADERS = propagator.fields();

/** Writes the span context of `ctx` into `headers`; a context without a valid span writes nothing. Returns whether it wrote. */
export function injectTraceContext(ctx: Context, headers: MsgHdrs): boolean {
  const span = trace.getSpan(ctx);
  if (!span || !isSpanContextValid(span.spanContext())) return false;
  propagator.inject(ctx, headers, setter);
  return true;
}

/**
 * The caller's span context from a message's headers, as the (remote) parent in `base`
 * (ROOT_CONTEXT unless told: a handler never inherits whatever context happens to be active).
 * Missing or malformed headers give `base` unchanged.
 */
export function extractTraceContext(headers: MsgHdrs | undefined, base: Context = ROOT_CONTEXT): Context {
  if (!headers) return base;
  return propagator.extract(base, headers, getter);
}

/** A caller's span context from an HTTP request's headers (traceparent, tracestate); none gives ROOT_CONTEXT. */
export function extractHttpTraceContext(headers: HttpHeaders): Context {
  return propagator.extract(ROOT_CONTEXT, headers, httpGetter);
}
