import { boardRead, FreeBoard, FullBoard, type ViewName } from "@board/proto";
import { isBusError, requestBytes } from "@board/service-kit";
import type { z } from "zod";
import type { BoardViewDeps } from "../reads/board-view.js";

/** The two views the page is drawn from, with the ETags the board gave them. */
export interface DrawnViews {
  free: FreeBoard;
  freeEtag: string;
  delayed: FullBoard;
  delayedEtag: string;
}

export type SliceRead =
  | { kind: "drawn"; views: DrawnViews }
  | { kind: "warming_up" }
  | { kind: "unreachable"; err: unknown };

/**
 * Reads the free view and the delayed full board, conditionally on the ETags of `last`: a
 * view that has not changed answers 304 and its parsed copy in `last` is kept.
 */
export async function readSlice(deps: BoardViewDeps, last: DrawnViews | null): Promise<SliceRead> {
  try {
    const [free, delayed] = await Promise.all([
      readView(deps, "free", FreeBoard, last ? { etag: last.freeEtag, value: last.free } : null),
      readView(deps, "delayed", FullBoard, last ? { etag: last.delayedEtag, value: last.delayed } : null),
    ]);
    return { kind: "drawn", views: { free: free.value, freeEtag: free.etag, delayed: delayed.value, delayedEtag: delayed.etag } };
  } catch (err) {
    // No snapshot yet, or none of an earlier trading day: the board said so; anything else is a failure to reach it.
    if (isBusError(err) && err.code === "snapshot_unavailable") return { kind: "warming_up" };
    return { kind: "unreachable", err };
  }
}

async function readView<S extends typeof FreeBoard | typeof FullBoard>(
  deps: BoardViewDeps,
  view: ViewName,
  schema: S,
  known: { etag: string; value: z.infer<S> } | null,
): Promise<{ etag: string; value: z.infer<S> }> {
  const reply = await requestBytes(
    deps.nc,
    boardRead,
    { view, encoding: "identity", ...(known ? { if_none_match: known.etag } : {}) },
    { timeoutMs: deps.timeoutMs },
  );
  if (reply.meta.status === 304 && known) return known;
  const value = schema.parse(JSON.parse(Buffer.from(reply.body).toString("utf8"))) as z.infer<S>;
  return { etag: reply.meta.etag, value };
}
