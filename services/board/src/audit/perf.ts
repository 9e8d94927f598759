import { PRODUCT, type PerfView } from "@board/proto";
import { forwardPairs, pct, returnOf, type MarkedDay } from "./forward.js";
import { MIN_DAYS } from "./signal-audit.js";

/**
 * The model portfolio: each day, the book's risk-adjusted lane equally weighted (cash when
 * empty), held to the next session's board; compounded against the book's index.
 */
export function perfView(days: MarkedDay[]): Omit<PerfView, "freshness"> {
  const pairs = forwardPairs(days, 1);
  const bookCodes = [...new Set(days.flatMap((d) => Object.keys(d.marks.index)))];
  const books = bookCodes.map((book) => {
    let model = 1;
    let bench = 1;
    let benchmark = "";
    for (const [from, to] of pairs) {
      const indexSym = from.marks.index[book as keyof typeof from.marks.index];
      const b = returnOf(indexSym, from, to);
      if (b === null || !indexSym) continue;
      benchmark = indexSym;
      const lane = from.marks.lanes[book as keyof typeof from.marks.lanes] ?? [];
      const rets = lane.map((s) => returnOf(s, from, to)).filter((r): r is number => r !== null);
      model *= 1 + (rets.length ? rets.reduce((x, y) => x + y, 0) / rets.length : 0);
      bench *= 1 + b;
    }
    const ok = pairs.length >= MIN_DAYS;
    return {
      book,
      benchmark,
      model_return_pct: ok ? pct(model - 1) : null,
      benchmark_return_pct: ok ? pct(bench - 1) : null,
      excess_pct: ok ? pct(model - bench) : null,
    };
  });
  const enough = pairs.length >= MIN_DAYS;
  return {
    product: PRODUCT,
    status: enough ? "ok" : "insufficient_history",
    message: enough
      ? `Model portfolio over ${pairs.length} committed sessions. Percentages only; past results, no claim about future returns.`
      : `Only ${pairs.length} committed session(s) so far; performance is reported from ${MIN_DAYS} on. Nothing is estimated or filled in.`,
    sessions: pairs.length,
    first_day: days[0]?.asofDaily ?? null,
    last_day: days.at(-1)?.asofDaily ?? null,
    books,
    method:
      "Each session, the book's risk-adjusted buy-list lane equally weighted (cash when empty), held until the next session's committed board, compounded; the benchmark is the book's index over the same sessions.",
  };
}
