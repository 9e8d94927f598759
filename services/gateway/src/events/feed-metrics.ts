import { Gauge, type Metrics } from "@board/service-kit";
import type { BoardEventFeed } from "./feed.js";

/**
 * event_feed_seq: the newest board event this replica's streams have (its commitment seq),
 * beside the board's board_publication_seq: a gateway whose feed stays behind the board (events
 * lost on the bus, the board not answering its resync) pushes stale boards, and alerts.
 */
export function gaugeFeed(metrics: Metrics, feed: BoardEventFeed): void {
  new Gauge({
    name: "event_feed_seq",
    help: "Commitment seq of the newest board event this gateway's event streams hold; no value before the first",
    registers: [metrics.registry],
    collect() {
      const seq = feed.current()?.event.seq;
      if (seq === undefined) this.reset();
      else this.set(seq);
    },
  });
}
