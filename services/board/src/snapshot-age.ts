import { Gauge, type Metrics } from "@board/service-kit";
import type { Publication } from "./publication.js";

/**
 * board_snapshot_age_seconds: how old the served board's data is (now minus its computed_at),
 * computed when Prometheus scrapes, so it grows between snapshots as the data ages. NaN while
 * nothing is served (0 would read as perfectly fresh).
 */
export function gaugeSnapshotAge(metrics: Metrics, publication: () => Publication | null, now: () => Date): void {
  new Gauge({
    name: "board_snapshot_age_seconds",
    help: "Age of the served snapshot's data in seconds (now minus its computed_at), at scrape time",
    registers: [metrics.registry],
    collect() {
      const pub = publication();
      this.set(pub ? Math.max(0, (now().getTime() - Date.parse(pub.board.computed_at)) / 1000) : NaN);
    },
  });
}
