import type { BoardContent, BookCode } from "@board/proto";

/** What the audit and performance need of one day's board: compact, so a year of days loads fast. */
export interface DailyMarks {
  /** sym -> [price, entry state, opportunity decile 1..10, first book] */
  names: Record<string, [number, string, number, BookCode]>;
  /** book -> its index symbol */
  index: Partial<Record<BookCode, string>>;
  /** book -> the risk-adjusted lane's symbols (the model portfolio) */
  lanes: Partial<Record<BookCode, string[]>>;
}

export function marksOf(board: BoardContent): DailyMarks {
  const names: DailyMarks["names"] = {};
  for (const r of board.names) {
    const book = r.bk[0];
    if (!book) continue;
    names[r.sym] = [r.price, r.state, Math.min(10, Math.max(1, Math.ceil(r.opp_pct / 10))), book];
  }
  const index: DailyMarks["index"] = {};
  const lanes: DailyMarks["lanes"] = {};
  for (const code of board.book_order) {
    const book = board.books[code];
    if (!book) continue;
    index[code] = book.regime.index_sym;
    lanes[code] = book.lanes.risk_adjusted.map((e) => e.sym);
  }
  return { names, index, lanes };
}
