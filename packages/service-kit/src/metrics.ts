import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

/** prom-client's instruments, for a service's own metrics on its runtime's registry. */
export { Counter, Gauge, Histogram } from "prom-client";

export interface Metrics {
  readonly registry: Registry;
  /** Handling time of each bus endpoint, by subject and outcome (ok or a reason code). */
  readonly busHandled: Histogram<"subject" | "outcome">;
  /** Round trips this service made to others, by subject and outcome. */
  readonly busRoundTrip: Histogram<"subject" | "outcome">;
  readonly errors: Counter<"code">;
}

/** Latency buckets, seconds: from a cached read (sub-millisecond) to a slow settlement. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const buckets = LATENCY_BUCKETS;
  return {
    registry,
    busHandled: new Histogram({
      name: "bus_handled_seconds",
      help: "Time to handle a bus request, by subject and outcome",
      labelNames: ["subject", "outcome"],
      buckets,
      registers: [registry],
    }),
    busRoundTrip: new Histogram({
      name: "bus_round_trip_seconds",
      help: "Round trip of requests this service sent, by subject and outcome",
      labelNames: ["subject", "outcome"],
      buckets,
      registers: [registry],
    }),
    errors: new Counter({ name: "errors_total", help: "Errors by reason code", labelNames: ["code"], registers: [registry] }),
  };
}
