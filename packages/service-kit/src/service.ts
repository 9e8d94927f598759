import os from "node:os";
import { BUS_META_HEADER, pingEndpoint, type BusEndpoint, type ServiceName } from "@board/proto";
import { context, SpanKind, trace, type Span, type Tracer } from "@opentelemetry/api";
import { headers as natsHeaders, type MsgHdrs, type NatsConnection, type Service, type ServiceMsg } from "nats";
import type { z } from "zod";
import { isDatabaseUnavailable } from "./db-errors.js";
import { BusError, isBusError } from "./errors.js";
import type { Logger } from "./log.js";
import type { Metrics } from "./metrics.js";
import { markFailure } from "./span-outcome.js";
import { NO_TRACER } from "./telemetry.js";
import { extractTraceContext } from "./trace-context.js";

/** Room for a reply's header block besides its metadata (NATS/1.0 line, header name, separators). */
const HEADER_OVERHEAD_BYTES = 256;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface HandlerContext {
  readonly headers: MsgHdrs | undefined;
}

export interface BytesReply<M> {
  meta: M;
  body: Uint8Array;
}

/** An endpoint and the function that answers it. */
export type Binding =
  | { kind: "json"; ep: BusEndpoint; handle: (req: unknown, ctx: HandlerContext) => Promise<unknown> }
  | { kind: "bytes"; ep: BusEndpoint; handle: (req: unknown, ctx: HandlerContext) => Promise<BytesReply<unknown>> };

export function bind<Req extends z.ZodType, Rep extends z.ZodType>(
  ep: BusEndpoint<Req, Rep>,
  handle: (req: z.output<Req>, ctx: HandlerContext) => Promise<z.input<Rep>>,
): Binding {
  if (ep.body !== "json") throw new Error(`${ep.subject} replies with bytes: use bindBytes`);
  return { kind: "json", ep, handle: handle as (req: unknown, ctx: HandlerContext) => Promise<unknown> };
}

export function bindBytes<Req extends z.ZodType, Rep extends z.ZodType>(
  ep: BusEndpoint<Req, Rep>,
  handle: (req: z.output<Req>, ctx: HandlerContext) => Promise<BytesReply<z.input<Rep>>>,
): Binding {
  if (ep.body !== "bytes") throw new Error(`${ep.subject} replies with JSON: use bind`);
  return { kind: "bytes", ep, handle: handle as (req: unknown, ctx: HandlerContext) => Promise<BytesReply<unknown>> };
}

export interface ServiceOptions {
  nc: NatsConnection;
  name: ServiceName;
  version: string;
  description: string;
  instance: string;
  log: Logger;
  metrics: Metrics;
  /** The runtime's tracer: each request is handled in a SERVER span under the caller's. None: no spans. */
  tracer?: Tracer;
  bindings: Binding[];
}

export const defaultInstanceId = () => `${os.hostname()}-${process.pid}`;

/**
 * Registers the service with the NATS services API ($SRV discovery and stats), its endpoints
 * in the `<service>.v1` group under the shared queue group, plus `<service>.v1.ping`.
 */
export async function addBusService(opts: ServiceOptions): Promise<Service> {
  const startedAt = new Date();
  const ping = pingEndpoint(opts.name);
  const bindings: Binding[] = [
    bind(ping, async () => ({
      service: opts.name,
      version: opts.version,
      instance: opts.instance,
      started_at: startedAt.toISOString(),
      uptime_seconds: (Date.now() - startedAt.getTime()) / 1000,
    })),
    ...opts.bindings,
  ];
  const srv = await opts.nc.services.add({
    name: opts.name,
    version: opts.version,
    description: opts.description,
    queue: "q",
    metadata: { instance: opts.instance },
  });
  const groups = new Map<string, ReturnType<Service["addGroup"]>>();
  for (const b of bindings) {
    const group = groups.get(b.ep.group) ?? srv.addGroup(b.ep.group);
    groups.set(b.ep.group, group);
    group.addEndpoint(b.ep.name, {
      handler: (_err, msg) => void answer(b, msg, opts),
      metadata: { body: b.ep.body },
    });
  }
  // The server must hold every subscription before we call ourselves ready.
  await opts.nc.flush();
  return srv;
}

/**
 * Every path ends in exactly one reply: the result, or an error with a status and reason code.
 * The handler runs in a SERVER span, the child of the caller's span in the message's headers.
 */
function answer(b: Binding, msg: ServiceMsg, opts: ServiceOptions): Promise<void> {
  const caller = extractTraceContext(msg.headers);
  const span = (opts.tracer ?? NO_TRACER).startSpan(b.ep.subject, { kind: SpanKind.SERVER, attributes: { "messaging.system": "nats", "messaging.destination.name": b.ep.subject } }, caller);
  return context.with(trace.setSpan(caller, span), () => handle(b, msg, opts, span)).finally(() => span.end());
}

async function handle(b: Binding, msg: ServiceMsg, opts: ServiceOptions, span: Span): Promise<void> {
  const started = performance.now();
  let outcome = "ok";
  try {
    const req = parseRequest(b.ep, msg.data);
    const ctx: HandlerContext = { headers: msg.headers };
    if (b.kind === "json") {
      const result = b.ep.reply.safeParse(await b.handle(req, ctx));
      if (!result.success) {
        opts.log.error({ subject: b.ep.subject, issues: result.error.issues.slice(0, 5) }, "reply fails its schema");
        throw new BusError("internal_error");
      }
      msg.respond(encoder.encode(JSON.stringify(result.data)));
    } else {
      const { meta, body } = await b.handle(req, ctx);
      const checked = b.ep.reply.safeParse(meta);
      if (!checked.success) {
        opts.log.error({ subject: b.ep.subject, issues: checked.error.issues.slice(0, 5) }, "reply metadata fails its schema");
        throw new BusError("internal_error");
      }
      const h = natsHeaders();
      const metaJson = JSON.stringify(checked.data);
      h.set(BUS_META_HEADER, metaJson);
      // Past the server's max_payload the reply would be refused on the wire and the caller left
      // to time out: say so at once, so it can ask for a smaller form (a view gzipped).
      const maxPayload = opts.nc.info?.max_payload;
      if (maxPayload !== undefined && body.length + metaJson.length + HEADER_OVERHEAD_BYTES > maxPayload) throw new BusError("reply_too_large");
      msg.respond(body, { headers: h });
    }
  } catch (e) {
    if (isBusError(e)) {
      outcome = e.code;
      msg.respondError(e.status, e.code, e.worded ? encoder.encode(JSON.stringify({ message: e.message, ...(e.param !== undefined && { param: e.param }) })) : undefined);
      markFailure(span, e.code, e.status);
    } else if (isDatabaseUnavailable(e)) {
      // The database is away, not the request at fault: 503, so the caller retries (nothing was done).
      outcome = "service_unavailable";
      opts.log.warn({ err: (e as Error).message, subject: b.ep.subject }, "database unavailable");
      msg.respondError(503, outcome);
      markFailure(span, outcome, 503);
    } else {
      outcome = "internal_error";
      // The text of an unexpected failure stays in our log; the bus carries only the code.
      opts.log.error({ err: e, subject: b.ep.subject }, "handler failed");
      msg.respondError(500, "internal_error");
      markFailure(span, outcome, 500);
    }
    opts.metrics.errors.inc({ code: outcome });
  } finally {
    opts.metrics.busHandled.observe({ subject: b.ep.subject, outcome }, (performance.now() - started) / 1000);
  }
}

function parseRequest(ep: BusEndpoint, data: Uint8Array): unknown {
  let raw: unknown = {};
  if (data.length > 0) {
    try {
      raw = JSON.parse(decoder.decode(data));
    } catch {
      throw new BusError("invalid_request", 400, "request is not JSON");
    }
  }
  const parsed = ep.request.safeParse(raw);
  if (!parsed.success) throw new BusError("invalid_request", 400, "request does not match its schema");
  return parsed.data;
}
