import { isMarketOpen } from "@board/market-calendar";
import { Gauge, type Metrics } from "@board/service-kit";
import type { Publication } from "./publication.js";

/**
 * board_market_open (1 during an NYSE regular session, by the calendar) so the freshness
 * objective counts market hours only, without a calendar in Prometheus; and
 * board_publication_seq (the served board's commitment seq, the event stream's event id) so
 * a gateway whose event feed is behind the board shows. Both read at scrape time.
 */
export function gaugePublication(metrics: Metrics, publication: () => Publication | null, now: () => Date): void {
  const registers = [metrics.registry];
  new Gauge({
    name: "board_market_open",
    help: "1 while the US market's regular session is open (NYSE calendar: holidays and early closes), else 0",
    registers,
    collect() {
      this.set(isMarketOpen(now()) ? 1 : 0);
    },
  });
  new Gauge({
    name: "board_publication_seq",
    help: "Commitment seq of the board this replica serves (the event stream's event id); no value while nothing is served",
    registers,
    collect() {
      const seq = publication()?.commitment?.seq;
      if (seq === undefined) this.reset();
      else this.set(seq);
    },
  });
}
