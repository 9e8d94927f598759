import type { BoardContent, BookCode, ChangesView, EntryState, Lane, RegimeVerdictCode } from "@board/proto";

/**
 * What /api/board/changes compares of a committed board, kept per board (change_bases) so a read
 * compares two small rows instead of parsing two snapshots: each book's verdict and lane members,
 * each name's entry state, and the names whose light is firing.
 */
export interface ChangeBasis {
  /** The board's book order (a jsonb object keeps no key order). */
  books: BookCode[];
  verdicts: Partial<Record<BookCode, RegimeVerdictCode>>;
  lanes: Partial<Record<BookCode, Record<Lane, string[]>>>;
  states: Record<string, EntryState>;
  firing: string[];
}

const LANES: readonly Lane[] = ["risk_adjusted", "swing"];

export function changeBasisOf(board: BoardContent): ChangeBasis {
  const verdicts: ChangeBasis["verdicts"] = {};
  const lanes: ChangeBasis["lanes"] = {};
  for (const code of board.book_order) {
    const book = board.books[code];
    if (!book) continue;
    verdicts[code] = book.regime.verdict;
    lanes[code] = { risk_adjusted: book.lanes.risk_adjusted.map((e) => e.sym), swing: book.lanes.swing.map((e) => e.sym) };
  }
  const states: Record<string, EntryState> = {};
  for (const n of board.names) states[n.sym] = n.state;
  return { books: [...board.book_order], verdicts, lanes, states, firing: board.names.filter((n) => n.light === "firing").map((n) => n.sym) };
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The difference from one board's basis to another's, in a stable order (books in the later board's order, then any it lacks; names sorted). */
export function changesBetween(from: ChangeBasis, to: ChangeBasis): Pick<ChangesView, "verdicts" | "lanes" | "states" | "newly_firing"> {
  const books = [...to.books, ...from.books.filter((b) => !to.books.includes(b))];
  const verdicts: ChangesView["verdicts"] = [];
  const lanes: ChangesView["lanes"] = [];
  for (const book of books) {
    const a = from.verdicts[book];
    const b = to.verdicts[book];
    if (a !== undefined && b !== undefined && a !== b) verdicts.push({ book, from: a, to: b });
    for (const lane of LANES) {
      const before = new Set(from.lanes[book]?.[lane] ?? []);
      const after = new Set(to.lanes[book]?.[lane] ?? []);
      const entered = [...after].filter((s) => !before.has(s)).sort(byText);
      const left = [...before].filter((s) => !after.has(s)).sort(byText);
      if (entered.length > 0 || left.length > 0) lanes.push({ book, lane, entered, left });
    }
  }
  const syms = new Set([...Object.keys(from.states), ...Object.keys(to.states)]);
  const states: ChangesView["states"] = [...syms]
    .sort(byText)
    .filter((sym) => from.states[sym] !== to.states[sym])
    .map((sym) => ({ sym, from: from.states[sym] ?? null, to: to.states[sym] ?? null }));
  const wasFiring = new Set(from.firing);
  const newlyFiring = to.firing.filter((s) => !wasFiring.has(s)).sort(byText);
  return { verdicts, lanes, states, newly_firing: newlyFiring };
}
