import { PaymentsMode, RailWarning, type PaymentRails } from "@board/proto";
import { Gauge, type Metrics } from "@board/service-kit";

/**
 * payments_mode{mode} (1 for the mode this replica runs in), payments_rail_up{rail} (1 live,
 * 0 down; a rail not configured has no series) and payments_rail_warning{rail, warning} (1 while
 * a live rail has it), read from the rail watch at scrape time: a pod in development mode where
 * real money is expected, a configured rail not offered, and a facilitator running low, alert.
 */
export function gaugeRails(metrics: Metrics, report: () => PaymentRails): void {
  const registers = [metrics.registry];
  new Gauge({
    name: "payments_mode",
    help: "1 for the payments mode of this replica (development: no real money; production)",
    labelNames: ["mode"],
    registers,
    collect() {
      const { mode } = report();
      for (const m of PaymentsMode.options) this.set({ mode: m }, m === mode ? 1 : 0);
    },
  });
  new Gauge({
    name: "payments_rail_up",
    help: "1 when a configured payment rail is live (offered), 0 while it is down; rails not configured have no series",
    labelNames: ["rail"],
    registers,
    collect() {
      this.reset();
      for (const [rail, state] of Object.entries(report().rails)) if (state !== "off") this.set({ rail }, state === "live" ? 1 : 0);
    },
  });
  new Gauge({
    name: "payments_rail_warning",
    help: "1 for each warning a live rail has (facilitator_balance_low, multicall3_missing), 0 for the others; rails not live have no series",
    labelNames: ["rail", "warning"],
    registers,
    collect() {
      this.reset();
      const { rails, warnings } = report();
      for (const [rail, state] of Object.entries(rails)) {
        if (state !== "live") continue;
        const has = new Set<string>(warnings?.[rail as keyof typeof warnings] ?? []);
        for (const warning of RailWarning.options) this.set({ rail, warning }, has.has(warning) ? 1 : 0);
      }
    },
  });
}
