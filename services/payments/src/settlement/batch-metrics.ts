import { Counter, Gauge, Histogram, type Metrics } from "@board/service-kit";
import type { RailInstruments } from "../rails/configured.js";

/** Batch sizes: powers of two up to the largest SETTLEMENT_BATCH_MAX. */
const SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/**
 * The settlement figures the bench and operators read off /metrics: batch sizes and outcomes,
 * gas per transferred payment (payments_settlement_gas_total / payments_settlement_transfers_total),
 * the JSON-RPC calls made to the Base node, by method, and the facilitator's balance.
 */
export function settlementInstruments(metrics: Metrics): Required<RailInstruments> {
  const registers = [metrics.registry];
  const size = new Histogram({ name: "payments_settlement_batch_size", help: "Authorizations per closed settlement batch", buckets: SIZE_BUCKETS, registers });
  const batches = new Counter({ name: "payments_settlement_batches_total", help: "Settlement batches by outcome (mined, reverted, refused, unknown, not_sent)", labelNames: ["outcome"], registers });
  const gas = new Counter({ name: "payments_settlement_gas_total", help: "Gas used by mined settlement batches", registers });
  const transfers = new Counter({ name: "payments_settlement_transfers_total", help: "Payments whose own transfer a mined batch executed", registers });
  const sent = new Counter({ name: "payments_settlement_sent_total", help: "Payments sent in a settlement batch (after its simulation)", registers });
  const calls = new Counter({ name: "payments_chain_requests_total", help: "JSON-RPC calls made to the Base node, by method", labelNames: ["method"], registers });
  const balance = new Gauge({ name: "payments_facilitator_balance_wei", help: "The settling account's balance, in wei, as last read (at each rail check and every 30 s)", labelNames: ["network"], registers });
  return {
    onBatch(report) {
      size.observe(report.size);
      batches.inc({ outcome: report.outcome });
      sent.inc(report.sent);
      transfers.inc(report.transferred);
      if (report.gasUsed > 0n) gas.inc(Number(report.gasUsed));
    },
    onChainCall: (method) => calls.inc({ method }),
    onFacilitatorBalance: (network, wei) => balance.set({ network }, Number(wei)),
  };
}
