import { EVENT_STREAM_DEFAULTS } from "@board/proto";
import type { Logger, Metrics, NatsConnection } from "@board/service-kit";
import type { GatewayEnv } from "../env.js";
import { BoardEventFeed } from "./feed.js";
import { gaugeFeed } from "./feed-metrics.js";
import { EventStreams } from "./streams.js";

export { serveEvents } from "./serve.js";
export type { EventStreams } from "./streams.js";
export type { BoardEventFeed } from "./feed.js";

/** Events kept for Last-Event-ID resumes: more than a whole session's boards at the 5-minute cadence (about 80). */
export const EVENT_RING_SIZE = 128;
/** The board is asked for its current state this often anyway: an event lost on the bus arrives at most this late. */
export const EVENT_RESYNC_MS = 60_000;

/** The push feed of this replica: its follower of the board's publications (MCP's resource updates follow it too) and its streams. */
export function startBoardEvents(deps: { nc: NatsConnection; log: Logger; metrics: Metrics; env: GatewayEnv }): { feed: BoardEventFeed; streams: EventStreams; stop(): void } {
  const { env } = deps;
  const feed = new BoardEventFeed({ nc: deps.nc, log: deps.log, timeoutMs: env.BUS_TIMEOUT_MS, ringSize: EVENT_RING_SIZE, resyncMs: EVENT_RESYNC_MS });
  const streams = new EventStreams({
    feed,
    caps: { perClient: env.EVENTS_MAX_STREAMS_PER_CLIENT, total: env.EVENTS_MAX_STREAMS },
    bound: { maxBufferedBytes: env.EVENTS_SLOW_CLIENT_BYTES, maxStallMs: env.EVENTS_SLOW_CLIENT_SECONDS * 1000 },
    heartbeatMs: env.EVENTS_HEARTBEAT_SECONDS * 1000,
    retryMs: EVENT_STREAM_DEFAULTS.retryMs,
    metrics: deps.metrics,
  });
  const stopFeed = feed.start();
  gaugeFeed(deps.metrics, feed);
  return {
    feed,
    streams,
    stop: () => {
      streams.stop();
      stopFeed();
    },
  };
}
