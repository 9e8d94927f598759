import { DISCLAIMER, type BoardContent, type Candidate, type LaneEntry, type LiveFeedView, type LiveLaneEntry, type NameSetup } from "@board/proto";
import { readHead, verdictLine } from "./name-read.js";

type Content<T> = Omit<T, "freshness">;

function setupOf(setups: ReadonlyMap<string, NameSetup>, sym: string): NameSetup {
  const s = setups.get(sym);
  if (!s) throw new Error(`a lane names ${sym}, which the board does not carry`);
  return s;
}

/**
 * A lane entry as its book priced it (a name in two books is read by each: its state, light and
 * levels in this lane are this book's), with the name's conviction.
 */
function liveLaneEntry(entry: LaneEntry, s: NameSetup, targetsR: readonly number[]): LiveLaneEntry {
  return {
    rank: entry.rank,
    sym: entry.sym,
    price: entry.price,
    state: entry.state,
    light: entry.light,
    is_leader: entry.is_leader,
    opp_score: entry.opp_score,
    entry_q: entry.entry_q,
    atr_pct: entry.atr_pct,
    entry_window: entry.entry_window,
    entry_basis: entry.entry_basis,
    stop: entry.stop,
    stop_basis: entry.stop_basis,
    risk_per_share: Math.max(0, Math.round((entry.price - entry.stop) * 100) / 100),
    // A lane prices its first targets (2R and 3R) in the order of the rules' R multiples.
    targets: entry.targets.slice(0, targetsR.length).map((price, i) => ({ r: targetsR[i]!, price })),
    conviction: s.conviction,
    conviction_label: s.conviction_label,
  };
}

/** Highest conviction first, then opportunity; the symbol breaks ties so the order is stable. */
const byConviction = (a: NameSetup, b: NameSetup) =>
  b.conviction - a.conviction || b.opp_score - a.opp_score || (a.sym < b.sym ? -1 : a.sym > b.sym ? 1 : 0);

/**
 * /api/live/feed: per book the verdict line, permission ladder and both lanes with their levels
 * and conviction; then the candidates, every name in any lane once, with its full setup (its own
 * reading a permitted long setup), ranked.
 */
export function liveFeedView(board: BoardContent, setups: ReadonlyMap<string, NameSetup>, targetsR: readonly number[]): Content<LiveFeedView> {
  const served = new Set<string>();
  const books = Object.fromEntries(
    board.book_order.map((code) => {
      const book = board.books[code];
      if (!book) throw new Error(`snapshot has no book ${code}`);
      const lane = (entries: readonly LaneEntry[]) =>
        entries.map((entry) => {
          served.add(entry.sym);
          return liveLaneEntry(entry, setupOf(setups, entry.sym), targetsR);
        });
      return [
        code,
        {
          title: book.title,
          regime: verdictLine(board, code),
          ladder: book.regime.ladder,
          risk_adjusted: lane(book.lanes.risk_adjusted),
          swing: lane(book.lanes.swing),
        },
      ];
    }),
  ) as LiveFeedView["books"];
  // A name another book's lane lists but whose own reading is no permitted setup has no levels to serve.
  const candidates: Candidate[] = [...served]
    .map((sym) => setupOf(setups, sym))
    .filter((s) => s.permitted)
    .sort(byConviction)
    .map((s, i) => ({ rank: i + 1, ...s }));
  return { ...readHead(board), books, candidates, disclaimer: DISCLAIMER };
}
