import { Histogram, type Metrics } from "@board/service-kit";

/** How a read answered before its block ended: its transfer final, lost, or left unknown for reconciliation. */
export type FinalityOutcome = "final" | "lost" | "unknown";

/** Seconds: a Base block is about 2 s; reconciliation starts at RECONCILE_AFTER_SECONDS (60). */
const FINALITY_BUCKETS = [1, 2, 5, 10, 30, 60, 120, 300, 600];

/**
 * payments_settlement_finality_seconds{rail, outcome}: from a read answered before its block to
 * its transfer's outcome (the settlement objective, docs/operations.md). A read whose outcome
 * this replica never learns (receipt unknown) is observed as `unknown` when it gives up, so the
 * objective counts it as missed; reconciliation then ends its claim.
 */
export function finalityInstrument(metrics: Metrics): (rail: string, outcome: FinalityOutcome, seconds: number) => void {
  const histogram = new Histogram({
    name: "payments_settlement_finality_seconds",
    help: "From a paid read answered before its block to its transfer's outcome (final, lost, unknown), by rail",
    labelNames: ["rail", "outcome"],
    buckets: FINALITY_BUCKETS,
    registers: [metrics.registry],
  });
  return (rail, outcome, seconds) => histogram.observe({ rail, outcome }, seconds);
}
