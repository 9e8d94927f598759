import { BUS_ERROR_HEADERS, BUS_META_HEADER, ErrorCode, type BusEndpoint } from "@board/proto";
import { context, isSpanContextValid, SpanKind, trace } from "@opentelemetry/api";
import { headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection } from "nats";
import type { z } from "zod";
import { busInstrumentsOf } from "./bus-instruments.js";
import { BusError, isBusError } from "./errors.js";
import { replyMuxOf } from "./reply-mux.js";
import { markFailure } from "./span-outcome.js";
import { injectTraceContext } from "./trace-context.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface RequestOptions {
  timeoutMs?: number;
  headers?: MsgHdrs;
}

export const DEFAULT_TIMEOUT_MS = 3000;

/** A JSON request/reply across the bus; both ends are validated against the endpoint's schemas. */
export async function request<Req extends z.ZodType, Rep extends z.ZodType>(
  nc: NatsConnection,
  ep: BusEndpoint<Req, Rep>,
  req: z.input<Req>,
  opts: RequestOptions = {},
): Promise<z.output<Rep>> {
  return traced(nc, ep, req, opts, (msg) => jsonReply(ep, msg));
}

function jsonReply<Rep extends z.ZodType>(ep: BusEndpoint<z.ZodType, Rep>, msg: Msg): z.output<Rep> {
  let raw: unknown;
  try {
    raw = JSON.parse(decoder.decode(msg.data));
  } catch {
    throw new BusError("invalid_reply", 502, `${ep.subject}: reply is not JSON`);
  }
  const parsed = ep.reply.safeParse(raw);
  if (!parsed.success) throw new BusError("invalid_reply", 502, `${ep.subject}: reply does not match its schema`);
  return parsed.data;
}

/** A request whose reply is metadata (validated) plus raw body bytes. */
export async function requestBytes<Req extends z.ZodType, Rep extends z.ZodType>(
  nc: NatsConnection,
  ep: BusEndpoint<Req, Rep>,
  req: z.input<Req>,
  opts: RequestOptions = {},
): Promise<{ meta: z.output<Rep>; body: Uint8Array }> {
  return traced(nc, ep, req, opts, (msg) => bytesReply(ep, msg));
}

function bytesReply<Rep extends z.ZodType>(ep: BusEndpoint<z.ZodType, Rep>, msg: Msg): { meta: z.output<Rep>; body: Uint8Array } {
  const metaText = msg.headers?.get(BUS_META_HEADER);
  if (!metaText) throw new BusError("invalid_reply", 502, `${ep.subject}: reply has no metadata`);
  let raw: unknown;
  try {
    raw = JSON.parse(metaText);
  } catch {
    throw new BusError("invalid_reply", 502, `${ep.subject}: reply metadata is not JSON`);
  }
  const parsed = ep.reply.safeParse(raw);
  if (!parsed.success) throw new BusError("invalid_reply", 502, `${ep.subject}: reply metadata does not match its schema`);
  return { meta: parsed.data, body: msg.data };
}

/**
 * One round trip in a CLIENT span named after the subject (a child of whatever span is
 * active), its context in the request's headers, its time in bus_round_trip_seconds.
 */
async function traced<T>(nc: NatsConnection, ep: BusEndpoint, req: unknown, opts: RequestOptions, read: (msg: Msg) => T): Promise<T> {
  const checked = ep.request.safeParse(req);
  // A request that fails its own schema is our bug, not the caller's input.
  if (!checked.success) throw new BusError("internal_error", 500, `${ep.subject}: request does not match its schema`);
  const { tracer, metrics, connected } = busInstrumentsOf(nc);
  const parent = context.active();
  const span = tracer.startSpan(ep.subject, { kind: SpanKind.CLIENT, attributes: { "messaging.system": "nats", "messaging.destination.name": ep.subject } }, parent);
  let headers = opts.headers;
  if (isSpanContextValid(span.spanContext())) {
    headers ??= natsHeaders();
    injectTraceContext(trace.setSpan(parent, span), headers);
  }
  const started = performance.now();
  let outcome = "ok";
  try {
    // nats.js drops what was queued while disconnected (its buffer is reset on reconnect), so a
    // request sent now could only time out: say at once that the bus is away.
    if (connected && !connected()) throw new BusError("service_unavailable", 503, `${ep.subject}: the bus is disconnected`);
    return read(await send(nc, ep, checked.data, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, headers));
  } catch (e) {
    const err = isBusError(e) ? e : new BusError("internal_error");
    outcome = err.code;
    markFailure(span, err.code, err.status);
    throw e;
  } finally {
    metrics?.busRoundTrip.observe({ subject: ep.subject, outcome }, (performance.now() - started) / 1000);
    span.end();
  }
}

/** The body of a worded refusal: { message, param? }; anything else is not one. */
function wordedOf(data: Uint8Array): { message: string; param?: string } | undefined {
  if (data.length === 0) return undefined;
  try {
    const body = JSON.parse(new TextDecoder().decode(data)) as { message?: unknown; param?: unknown };
    if (typeof body.message !== "string") return undefined;
    return { message: body.message, ...(typeof body.param === "string" && { param: body.param }) };
  } catch {
    return undefined;
  }
}

async function send(nc: NatsConnection, ep: BusEndpoint, data: unknown, timeout: number, headers: MsgHdrs | undefined): Promise<Msg> {
  const msg = await replyMuxOf(nc).request(ep.subject, encoder.encode(JSON.stringify(data)), timeout, headers);
  const status = msg.headers?.get(BUS_ERROR_HEADERS.code);
  if (status) {
    const reason = ErrorCode.safeParse(msg.headers?.get(BUS_ERROR_HEADERS.reason));
    const code = Number(status);
    const valid = Number.isInteger(code) && code >= 400 && code <= 599;
    // A worded refusal carries its client-facing message (and the parameter at fault) as the reply's body.
    const worded = wordedOf(msg.data);
    throw new BusError(reason.success ? reason.data : "upstream_error", valid ? code : 502, worded?.message ?? `${ep.subject} answered ${status}`, worded?.param, worded !== undefined);
  }
  return msg;
}

export { natsHeaders as busHeaders };
