import type { BoardContent, Book } from "@board/proto";
import { TOP_N, topNames } from "./delayed.js";

/** /api/board/agent?preview=1: the full board's schema, previous day, top 3 names per book. */
export function previewView(delayed: BoardContent): BoardContent {
  const keep = new Set(delayed.book_order.flatMap((code) => topNames(delayed, code).map((r) => r.sym)));
  const books = Object.fromEntries(
    Object.entries(delayed.books).map(([code, book]): [string, Book] => [
      code,
      { ...book, lanes: { risk_adjusted: book.lanes.risk_adjusted.slice(0, TOP_N), swing: book.lanes.swing.slice(0, TOP_N) } },
    ]),
  ) as BoardContent["books"];
  return { ...delayed, books, names: delayed.names.filter((r) => keep.has(r.sym)) };
}
