import { Counter, Gauge, type Metrics } from "@board/service-kit";
import type { Loss } from "../claims/early-answers.js";
import type { ExposureStats } from "./payer-exposure.js";

export interface ExposureInstruments {
  /** A read answered before its block. */
  onEarly(rail: string): void;
  /** A read served before its block whose transfer then failed. */
  onLoss(loss: Loss): void;
  /** The ledger's totals, as last read. */
  onStats(stats: ExposureStats): void;
}

/** What answering before the block risks, on the service's registry (docs/operations.md). */
export function exposureInstruments(metrics: Metrics): ExposureInstruments {
  const registers = [metrics.registry];
  const early = new Counter({ name: "payments_answered_before_block_total", help: "Paid reads answered once their transfer was broadcast, before its block", labelNames: ["rail"], registers });
  const losses = new Counter({ name: "payments_losses_total", help: "Reads served before their block whose transfer then failed, by rail and reason", labelNames: ["rail", "reason"], registers });
  const lost = new Counter({ name: "payments_lost_base_units_total", help: "Base units of reads served before their block and never paid", labelNames: ["rail"], registers });
  const unsettled = new Gauge({ name: "payments_unsettled_served_base_units", help: "Base units served before their block and not yet final, over every payer", registers });
  const owed = new Gauge({ name: "payments_owed_base_units", help: "Base units owed by payers whose transfer failed after their read was served", registers });
  const owing = new Gauge({ name: "payments_payers_owing", help: "Payers owing (their payments are refused until cleared)", registers });
  return {
    onEarly: (rail) => early.inc({ rail }),
    onLoss(loss) {
      losses.inc({ rail: loss.rail, reason: loss.reason });
      lost.inc({ rail: loss.rail }, Number(loss.amount));
    },
    onStats(stats) {
      unsettled.set(Number(stats.unsettled));
      owed.set(Number(stats.owed));
      owing.set(stats.payersOwing);
    },
  };
}
