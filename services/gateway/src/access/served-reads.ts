import { SERVED_READ_SUBJECT, type Tier } from "@board/proto";
import { Counter, otel, publishTraced, type Logger, type Metrics, type NatsConnection } from "@board/service-kit";

export type ServedReads = (route: string, tier: Tier) => void;

/** How long reads are counted before their counts are published. */
export const SERVED_READS_WINDOW_MS = 100;
/** Trace links kept per published count: enough to find sample reads, bounded under load. */
const MAX_LINKS = 32;

export interface ServedReadsRecorder {
  readonly record: ServedReads;
  /** Publishes what is counted now (at shutdown, before the bus drains). */
  flush(): Promise<void>;
}

/**
 * Records served reads without a message per read: the gateway counts them per route and
 * tier for SERVED_READS_WINDOW_MS, then publishes one JetStream event per route and tier
 * with its count (acknowledged; a failure is logged at most once a minute). At thousands of
 * reads a second this is a few messages instead of thousands, for the gateway, the stream
 * and metering alike; a gateway that dies loses at most one window's counts (the reads
 * themselves were served). The publish span links to the spans of the reads it counts.
 * The same counts go to gateway_reads_served_total{route, tier} when each window closes.
 */
export function servedReadsRecorder(nc: NatsConnection, log: Logger, metrics?: Metrics): ServedReadsRecorder {
  const encoder = new TextEncoder();
  const served = metrics
    ? new Counter({ name: "gateway_reads_served_total", help: "Reads served by route and tier (anonymous, free_key, wallet, x402, scanner_license, live_license, bearer)", labelNames: ["route", "tier"], registers: [metrics.registry] })
    : null;
  let window = new Map<string, { route: string; tier: Tier; count: number; links: otel.SpanContext[] }>();
  let timer: NodeJS.Timeout | null = null;
  let lastWarn = 0;

  const flush = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = null;
    const closing = window;
    window = new Map();
    const at = new Date().toISOString();
    for (const w of closing.values()) served?.inc({ route: w.route, tier: w.tier }, w.count);
    await Promise.all(
      [...closing.values()].map((w) =>
        publishTraced(nc, SERVED_READ_SUBJECT, encoder.encode(JSON.stringify({ route: w.route, tier: w.tier, at, count: w.count })), {}, w.links).catch((err: unknown) => {
          const now = Date.now();
          if (now - lastWarn < 60_000) return;
          lastWarn = now;
          log.warn({ err, reads: w.count }, "served reads could not be recorded; reads served may undercount");
        }),
      ),
    );
  };

  const record: ServedReads = (route, tier) => {
    const key = `${tier} ${route}`;
    let w = window.get(key);
    if (!w) window.set(key, (w = { route, tier, count: 0, links: [] }));
    w.count++;
    const span = otel.trace.getSpan(otel.context.active())?.spanContext();
    if (span && otel.isSpanContextValid(span) && w.links.length < MAX_LINKS) w.links.push(span);
    if (!timer) {
      // Outside the read's context: the window's publish belongs to no single read.
      timer = otel.context.with(otel.ROOT_CONTEXT, () => setTimeout(() => void flush(), SERVED_READS_WINDOW_MS));
      timer.unref();
    }
  };

  return { record, flush };
}
