import type {
  BoardContent,
  BookCode,
  BookPermission,
  EngineSection,
  EngineSetup,
  EngineRules,
  LanePlace,
  NameRecord,
  NameSetup,
  VerdictLine,
} from "@board/proto";
import { verdictLine } from "./name-read.js";

/**
 * Every name's full setup, by symbol (the names' order): its record joined with the engine's
 * setup, the lanes it is in and its books' verdicts and permissions. The live views are cut
 * from these; nothing here computes a price level, it only joins what the scanner computed.
 */
export function nameSetups(board: BoardContent, engine: EngineSection): Map<string, NameSetup> {
  const engineBySym = new Map(engine.setups.map((e) => [e.sym, e]));
  const places = lanePlaces(board);
  const lines = new Map(board.book_order.map((code) => [code, verdictLine(board, code)]));
  const setups = new Map<string, NameSetup>();
  for (const r of board.names) {
    const e = engineBySym.get(r.sym);
    if (!e) throw new Error(`engine section has no setup for ${r.sym}`);
    setups.set(r.sym, nameSetup(r, e, engine.rules, places.get(r.sym) ?? [], lines));
  }
  return setups;
}

/** Where each symbol sits in the books' lanes, in book order then lane order. */
function lanePlaces(board: BoardContent): Map<string, LanePlace[]> {
  const out = new Map<string, LanePlace[]>();
  for (const book of board.book_order) {
    const lanes = board.books[book]?.lanes;
    if (!lanes) throw new Error(`snapshot has no book ${book}`);
    for (const lane of ["risk_adjusted", "swing"] as const) {
      for (const entry of lanes[lane]) {
        const place: LanePlace = { book, lane, rank: entry.rank };
        const list = out.get(entry.sym);
        if (list) list.push(place);
        else out.set(entry.sym, [place]);
      }
    }
  }
  return out;
}

function nameSetup(
  r: NameRecord,
  e: EngineSetup,
  rules: EngineRules,
  lanes: LanePlace[],
  lines: ReadonlyMap<BookCode, VerdictLine>,
): NameSetup {
  const books = r.bk.map((book): BookPermission => {
    const line = lines.get(book);
    if (!line) throw new Error(`name ${r.sym} is in book ${book}, which the board does not carry`);
    return { book, verdict: line.verdict, stance: line.stance, permitted: e.permitted.includes(book) };
  });
  return {
    sym: r.sym,
    name: r.name,
    sector: r.sector,
    bk: r.bk,
    price: r.price,
    chg_pct: r.chg_pct,
    state: r.state,
    light: r.light,
    opp_score: r.opp_score,
    opp_pct: r.opp_pct,
    entry_q: r.entry_q,
    atr: e.atr,
    atr_pct: e.atr_pct,
    entry_window: e.entry_window,
    entry_basis: e.entry_basis,
    // The window comes from the trigger's pivot, not from this price, so the price can be outside it.
    in_entry_window: e.entry_window !== null && r.price >= e.entry_window.low && r.price <= e.entry_window.high,
    stop: e.stop,
    stop_basis: e.stop_basis,
    chandelier_stop: e.chandelier_stop,
    risk_per_share: e.risk_per_share,
    // The snapshot's contract guarantees one price per R multiple.
    targets: e.targets && rules.targets_r.map((multiple, i) => ({ r: multiple, price: e.targets![i]! })),
    conviction: e.conviction,
    conviction_label: e.conviction_label,
    hold_q: r.hold_q,
    hold_label: r.hold_label,
    is_leader: r.is_leader,
    liquidity: r.liquidity,
    gap_risk: r.gap_risk,
    lanes,
    books,
    permitted: e.refusal === null,
    refusal: e.refusal,
    ranked_in: r.ranked_in,
    tt_count: r.tt_count,
    trigger: r.trigger,
    trigger_date: r.trigger_date,
    days_in_state: r.days_in_state,
  };
}
