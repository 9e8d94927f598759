import { z } from "zod";
import { BoardState } from "../records/views.js";
import { CommitmentRef } from "../records/proof-views.js";
import type { BoardReadMeta } from "./board.js";

/**
 * Published (core NATS, every subscriber gets it) by a board replica when a publication goes
 * live, so every gateway replica can push it to its /api/board/events streams. Several board
 * replicas publish the same publication: its `seq` is the same on each, and subscribers keep
 * only what is newer than what they hold.
 */
export const BOARD_PUBLISHED_SUBJECT = "board.events.v1.published";

/**
 * One published board: the /api/board/state read of it at the moment it went live (its
 * hashes and freshness) and its place in the proof chain. `seq` is the commitment's number:
 * monotonic, the same on every replica, so it is the SSE event id.
 */
export const BoardPublishedEvent = z.object({
  seq: CommitmentRef.shape.seq,
  asof_daily: BoardState.shape.asof_daily,
  computed_at: BoardState.shape.computed_at,
  /** The snapshot's hash, as /api/board/state names it. */
  snapshot: BoardState.shape.snapshot,
  content_hash: CommitmentRef.shape.content_hash,
  commitment: CommitmentRef.shape.commitment,
  /**
   * A content hash per view, as /api/board/state gives them: buy again only a view whose hash
   * changed. Keyed by any view name, not only this release's: during a rolling update a board
   * that has a new view still reaches the gateways of the release before.
   */
  views: z.record(z.string().regex(/^[a-z][a-z0-9-]{0,63}$/), BoardState.shape.views.valueType),
  market_open: z.boolean(),
  next_refresh_at: BoardState.shape.freshness.shape.next_refresh_at,
});
export type BoardPublishedEvent = z.infer<typeof BoardPublishedEvent>;

/** A /api/board/state body as a gateway reads it: its views keyed as the event keys them. */
export const PublishedState = BoardState.extend({ views: BoardPublishedEvent.shape.views });
export type PublishedState = z.infer<typeof PublishedState>;

/**
 * The event of a publication from a board.v1.read of its "state" view (the board when it goes
 * live, a gateway asking for the current one): the same fields either way. Null when the read
 * names no commitment (no snapshot is committed yet).
 */
export function publishedEventOf(meta: BoardReadMeta, state: PublishedState): BoardPublishedEvent | null {
  if (!meta.commitment || state.snapshot !== meta.snapshot) return null;
  return {
    seq: meta.commitment.seq,
    asof_daily: state.asof_daily,
    computed_at: state.computed_at,
    snapshot: state.snapshot,
    content_hash: meta.commitment.content_hash,
    commitment: meta.commitment.commitment,
    views: state.views,
    market_open: state.freshness.market_open,
    next_refresh_at: state.freshness.next_refresh_at,
  };
}

/**
 * The push feed's terms as a gateway runs them by default (its EVENTS_* variables), stated by
 * the documents: open streams per client address and per gateway replica, the heartbeat, and
 * the reconnection delay streams announce (`retry:`, plus up to 2 s of jitter).
 */
export const EVENT_STREAM_DEFAULTS = { perClient: 4, perReplica: 5000, heartbeatSeconds: 15, retryMs: 3000 } as const;
