import { BOARD_PUBLISHED_SUBJECT, BoardPublishedEvent, BoardState, publishedEventOf } from "@board/proto";
import type { Logger, NatsConnection } from "@board/service-kit";
import type { Publication } from "./publication.js";
import { readView } from "./read.js";

const decoder = new TextDecoder();

export interface AnnounceDeps {
  nc: NatsConnection;
  log: Logger;
  now: () => Date;
  refreshMinutes: number;
}

/**
 * Tells every gateway that a publication went live (BOARD_PUBLISHED_SUBJECT), so their
 * /api/board/events streams push it. The event is the publication's state read as a client
 * would get it now, plus its commitment, the same the gateways make from a board.v1.read of
 * "state" when they start. A core NATS publish: a gateway that misses it catches up by asking.
 */
export function announcePublication(deps: AnnounceDeps, pub: Publication): void {
  try {
    const { meta, body } = readView({ publication: () => pub, now: deps.now, refreshMinutes: deps.refreshMinutes }, { view: "state" });
    const event = publishedEventOf(meta, BoardState.parse(JSON.parse(decoder.decode(body))));
    if (!event) return;
    deps.nc.publish(BOARD_PUBLISHED_SUBJECT, JSON.stringify(BoardPublishedEvent.parse(event)));
  } catch (err) {
    // The publication is live whatever happens here: readers polling /api/board/state still see it.
    deps.log.error({ err }, "publication not announced");
  }
}
