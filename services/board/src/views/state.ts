import { PRODUCT, type BoardContent, type BoardState, type ViewName } from "@board/proto";

/** /api/board/state: one hash per view, so a client buys again only when its view changed. */
export function stateView(board: BoardContent, snapshotHash: string, hashes: Map<ViewName, string>): Omit<BoardState, "freshness"> {
  return {
    product: PRODUCT,
    asof_daily: board.asof_daily,
    computed_at: board.computed_at,
    snapshot: snapshotHash,
    views: Object.fromEntries([...hashes].map(([view, hash]) => [view, hash.slice(0, 32)])),
  };
}
