import { BOARD_EVENTS_PATH } from "@board/proto";
import type { Request, Response } from "express";
import { clientOf } from "../http/client-address.js";
import { sendError } from "../http/errors.js";
import { withinAnonymousBurst, type ReadDeps } from "../reads/read.js";
import { STREAM_HEADERS } from "./sse.js";
import type { EventStreams } from "./streams.js";

/** A client at its own cap waits for one of its streams to close; a full replica frees up sooner, or another takes it. */
const RETRY_AFTER_SECONDS = { too_many_streams: 30, streams_at_capacity: 5, stopping: 2 } as const;

/** Last-Event-ID as this feed writes ids (the commitment's seq); anything else reads as absent: the client gets the newest event. */
function lastEventIdOf(req: Request): number | null {
  const header = req.headers["last-event-id"];
  return typeof header === "string" && /^\d{1,15}$/.test(header.trim()) ? Number(header.trim()) : null;
}

/**
 * GET /api/board/events: admitted under the caps (per client address, per replica), then the
 * anonymous burst limit as any free read, then held open as an event stream. HEAD answers the
 * stream's headers and ends.
 */
export async function serveEvents(deps: ReadDeps & { events: EventStreams }, req: Request, res: Response): Promise<void> {
  if (req.method === "HEAD") {
    res.writeHead(200, STREAM_HEADERS).end();
    return;
  }
  const slot = deps.events.admit(clientOf(req));
  if (slot === "too_many_streams")
    return sendError(res, slot, "This client address holds as many event streams as it may. Close one, or back off and reconnect later.", {
      retry_after_seconds: RETRY_AFTER_SECONDS[slot],
    });
  if (slot === "streams_at_capacity")
    return sendError(res, slot, "This replica holds as many event streams as it may. Back off and reconnect; meanwhile poll /api/board/state.", {
      retry_after_seconds: RETRY_AFTER_SECONDS[slot],
    });
  if (slot === "stopping") return sendError(res, "service_unavailable", "This replica is stopping. Reconnect.", { retry_after_seconds: RETRY_AFTER_SECONDS.stopping });
  let admitted = false;
  try {
    admitted = await withinAnonymousBurst(deps, req, res);
  } finally {
    if (!admitted) slot.release();
  }
  if (admitted && deps.events.attach(slot, res, lastEventIdOf(req))) deps.served(BOARD_EVENTS_PATH, "anonymous");
}
