import { context, createTraceState, ROOT_CONTEXT, trace, TraceFlags, type Context } from "@opentelemetry/api";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { MsgHdrsImpl, headers as natsHeaders } from "nats";
import { describe, expect, it } from "vitest";
import { extractHttpTraceContext, extractTraceContext, injectTraceContext, TRACE_HEADERS } from "../src/trace-context.js";

const tracer = new BasicTracerProvider().getTracer("test");

/** A context holding a fresh sampled span, and that span's ids. */
function withSpan(): { ctx: Context; traceId: string; spanId: string } {
  const span = tracer.startSpan("caller");
  const { traceId, spanId } = span.spanContext();
  return { ctx: trace.setSpan(ROOT_CONTEXT, span), traceId, spanId };
}

describe("trace context on NATS headers", () => {
  it("round-trips a span context: the extracted parent is the injected span, marked remote", () => {
    const { ctx, traceId, spanId } = withSpan();
    const h = natsHeaders();
    expect(injectTraceContext(ctx, h)).toBe(true);
    expect(h.get("traceparent")).toBe(`00-${traceId}-${spanId}-01`);
    const parent = trace.getSpanContext(extractTraceContext(h));
    expect(parent).toMatchObject({ traceId, spanId, isRemote: true, traceFlags: TraceFlags.SAMPLED });
  });

  it("survives the headers' wire encoding", () => {
    const { ctx, traceId, spanId } = withSpan();
    const h = natsHeaders();
    injectTraceContext(ctx, h);
    // What a subscriber receives: the headers decoded from the bytes sent.
    const received = MsgHdrsImpl.decode((h as MsgHdrsImpl).encode());
    expect(trace.getSpanContext(extractTraceContext(received))).toMatchObject({ traceId, spanId });
  });

  it("carries tracestate alongside", () => {
    const { ctx } = withSpan();
    const span = trace.getSpan(ctx)!;
    const stated = trace.setSpanContext(ROOT_CONTEXT, { ...span.spanContext(), traceState: createTraceState("vendor=abc") });
    const h = natsHeaders();
    injectTraceContext(stated, h);
    expect(h.get("tracestate")).toBe("vendor=abc");
    expect(trace.getSpanContext(extractTraceContext(h))?.traceState?.get("vendor")).toBe("abc");
    expect(TRACE_HEADERS).toEqual(["traceparent", "tracestate"]);
  });

  it("writes nothing when no valid span is in the context", () => {
    const h = natsHeaders();
    expect(injectTraceContext(ROOT_CONTEXT, h)).toBe(false);
    expect(h.keys()).toEqual([]);
  });

  it("gives the base context for missing or malformed headers, never the active one", () => {
    const { ctx } = withSpan();
    context.with(ctx, () => {
      expect(trace.getSpan(extractTraceContext(undefined))).toBeUndefined();
      const bad = natsHeaders();
      bad.set("traceparent", "00-zz-not-a-trace-01");
      expect(trace.getSpan(extractTraceContext(bad))).toBeUndefined();
      const allZero = natsHeaders();
      allZero.set("traceparent", `00-${"0".repeat(32)}-${"0".repeat(16)}-01`);
      expect(trace.getSpan(extractTraceContext(allZero))).toBeUndefined();
    });
  });

  it("reads traceparent from HTTP request headers", () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const spanId = "00f067aa0ba902b7";
    const parent = trace.getSpanContext(extractHttpTraceContext({ traceparent: `00-${traceId}-${spanId}-01`, host: "x" }));
    expect(parent).toMatchObject({ traceId, spanId, isRemote: true });
    expect(trace.getSpan(extractHttpTraceContext({ host: "x" }))).toBeUndefined();
  });
});
