import { DISCLAIMER, PRODUCT, type BoardContent, type FreeBoard } from "@board/proto";
import { topNames } from "./delayed.js";

export const UPGRADE_POINTERS = {
  live_board: "/api/board/agent",
  offers: "/api",
  free_key: "POST /api/key",
  directory: "/api/board/symbols",
  docs: "/llms.txt",
};

/** /api/board/free: the previous trading day's top 3 per book with regime lines. */
export function freeView(delayed: BoardContent): Omit<FreeBoard, "freshness"> {
  return {
    product: PRODUCT,
    free: true,
    delayed: true,
    asof_daily: delayed.asof_daily,
    computed_at: delayed.computed_at,
    book_order: delayed.book_order,
    books: Object.fromEntries(
      delayed.book_order.map((code) => {
        const regime = delayed.books[code]?.regime;
        if (!regime) throw new Error(`snapshot has no book ${code}`);
        return [code, { verdict: regime.verdict, stance: regime.stance, line: regime.line, top: topNames(delayed, code) }];
      }),
    ) as FreeBoard["books"],
    upgrade: UPGRADE_POINTERS,
    disclaimer: DISCLAIMER,
  };
}
