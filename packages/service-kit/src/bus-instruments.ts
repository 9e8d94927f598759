import type { Tracer } from "@opentelemetry/api";
import type { NatsConnection } from "nats";
import type { Metrics } from "./metrics.js";
import { NO_TRACER } from "./telemetry.js";

/** What a connection's outgoing requests and publishes are measured with: its runtime's tracer and metrics. */
export interface BusInstruments {
  readonly tracer: Tracer;
  readonly metrics: Metrics | null;
  /** False while the connection is down: requests then fail at once instead of waiting out their timeout. */
  readonly connected?: () => boolean;
}

const NONE: BusInstruments = { tracer: NO_TRACER, metrics: null };

/**
 * Each runtime owns its connection, so the connection names the runtime: request() and the
 * JetStream helpers find the right service's tracer from the `nc` every caller already
 * passes, with no tracer threaded through every call site.
 */
const byConnection = new WeakMap<NatsConnection, BusInstruments>();

export function instrumentBus(nc: NatsConnection, instruments: BusInstruments): void {
  byConnection.set(nc, instruments);
}

/** A connection no runtime instrumented (a test's, a script's) traces nothing but still passes an active trace on. */
export const busInstrumentsOf = (nc: NatsConnection): BusInstruments => byConnection.get(nc) ?? NONE;
