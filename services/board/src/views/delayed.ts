import type { BoardContent, BookCode, NameRecord } from "@board/proto";

export const TOP_N = 3;

/** A book's top names by opportunity score: the slice the free reads give away. */
export function topNames(board: BoardContent, book: BookCode, n = TOP_N): NameRecord[] {
  return board.names
    .filter((r) => r.bk.includes(book))
    .sort((a, b) => b.opp_score - a.opp_score || a.sym.localeCompare(b.sym))
    .slice(0, n);
}
