import { context, isSpanContextValid, SpanKind, trace, type SpanContext } from "@opentelemetry/api";
import { headers as natsHeaders, type JetStreamClient, type JetStreamPublishOptions, type MsgHdrs, type NatsConnection, type PubAck } from "nats";
import { busInstrumentsOf } from "./bus-instruments.js";
import { markFailure } from "./span-outcome.js";
import { extractTraceContext, injectTraceContext } from "./trace-context.js";

const clients = new WeakMap<NatsConnection, JetStreamClient>();

/**
 * A JetStream publish in a PRODUCER span (a child of the active span) whose context travels
 * in the message's headers, so whoever consumes it later continues the same trace.
 */
export async function publishTraced(
  nc: NatsConnection,
  subject: string,
  data: Uint8Array,
  opts: Partial<JetStreamPublishOptions> = {},
  /** The operations a batched message stands for (OpenTelemetry's links of a batch publish). */
  links: readonly SpanContext[] = [],
): Promise<PubAck> {
  const { tracer } = busInstrumentsOf(nc);
  const parent = context.active();
  const span = tracer.startSpan(
    `publish ${subject}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: { "messaging.system": "nats", "messaging.destination.name": subject, "messaging.operation.type": "send" },
      ...(links.length ? { links: links.map((context) => ({ context })) } : {}),
    },
    parent,
  );
  let headers: MsgHdrs | undefined = opts.headers;
  if (isSpanContextValid(span.spanContext())) {
    headers ??= natsHeaders();
    injectTraceContext(trace.setSpan(parent, span), headers);
  }
  let js = clients.get(nc);
  if (!js) clients.set(nc, (js = nc.jetstream()));
  try {
    return await js.publish(subject, data, { ...opts, ...(headers ? { headers } : {}) });
  } catch (err) {
    markFailure(span, "publish_failed", 503);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs `fn` for one consumed message in a CONSUMER span whose parent is the publisher's span
 * (from the message's headers), so the work it causes joins the publisher's trace.
 */
export function consumeTraced<T>(nc: NatsConnection, msg: { subject: string; headers?: MsgHdrs | undefined }, fn: () => Promise<T>): Promise<T> {
  const publisher = extractTraceContext(msg.headers);
  const span = busInstrumentsOf(nc).tracer.startSpan(`process ${msg.subject}`, { kind: SpanKind.CONSUMER, attributes: { "messaging.system": "nats", "messaging.destination.name": msg.subject, "messaging.operation.type": "process" } }, publisher);
  return context
    .with(trace.setSpan(publisher, span), fn)
    .catch((err: unknown) => {
      markFailure(span, "process_failed", 500);
      throw err;
    })
    .finally(() => span.end());
}
