import { Counter, type Metrics } from "@board/service-kit";

/**
 * How one settlement ended. refused: the chain, the facilitator or the ledger said no (its
 * reason code); failed: the outcome is unknown or could not be tried (the claim stays open for
 * reconciliation).
 */
export type SettlementOutcome = { rail: string; outcome: "settled"; amount: string } | { rail: string; outcome: "refused" | "failed"; reason: string };

export type SettlementOutcomes = (o: SettlementOutcome) => void;

/**
 * payments_settlements_total{rail, outcome, reason} and the revenue they bring,
 * payments_settled_base_units_total{rail}, on the service's registry.
 */
export function countSettlements(metrics: Metrics): SettlementOutcomes {
  const counter = new Counter({
    name: "payments_settlements_total",
    help: "Settlements by rail and outcome (settled, refused, failed) with the reason code of a refusal or failure",
    labelNames: ["rail", "outcome", "reason"],
    registers: [metrics.registry],
  });
  const revenue = new Counter({
    name: "payments_settled_base_units_total",
    help: "The asset's base units (USDC: 6 decimals) of settled payments by rail; a read answered before its block counts when served, and again in payments_lost_base_units_total if its transfer then fails",
    labelNames: ["rail"],
    registers: [metrics.registry],
  });
  return (o) => {
    counter.inc({ rail: o.rail, outcome: o.outcome, reason: o.outcome === "settled" ? "none" : o.reason });
    if (o.outcome === "settled") revenue.inc({ rail: o.rail }, Number(o.amount));
  };
}
