// The oracle's whole board from the raw bars: every book's reading, regime, lanes and cards,
// the name records (each the reading of its home book; methodology: books) and the engine section's setups.

import { BOOK_ORDER, type BookCode } from "@board/proto";
import type { Universe } from "../../src/universe.js";
import type { BuiltBoard } from "./boards.js";
import { cardsOf, lanesOf, setupOf, type CardRead, type LaneEntry, type SetupRead } from "./lanes.js";
import { bookRegime, type BookRegime } from "./regime.js";
import { readBook, type Context, type Reading } from "./score.js";
import { NameSeries } from "./series.js";

export type OracleBook = {
  code: BookCode;
  members: string[];
  readings: Map<string, Reading>;
  regime: BookRegime;
  lanes: { risk_adjusted: LaneEntry[]; swing: LaneEntry[] };
  cards: { index: CardRead; sectors: CardRead[] };
};

export type OracleBoard = {
  ctx: Context;
  books: Record<BookCode, OracleBook>;
  /** Home-book reading per name, in universe order. */
  records: Reading[];
  setups: SetupRead[];
};

export function computeOracle(universe: Universe, built: BuiltBoard): OracleBoard {
  const series = new Map<string, NameSeries>();
  for (const e of universe.entries) {
    const nb = built.series.get(e.sym);
    if (!nb) throw new Error(`oracle: the engine read no bars for ${e.sym}`);
    series.set(e.sym, new NameSeries(e, nb.bars, nb.partial));
  }
  const ctx: Context = { series, sectorEtfs: universe.sectorEtfs };

  const partial = {} as Record<BookCode, Omit<OracleBook, "lanes" | "cards">>;
  for (const code of BOOK_ORDER) {
    const members = universe.entries.filter((e) => e.books.includes(code)).map((e) => series.get(e.sym)!);
    partial[code] = {
      code,
      members: members.map((m) => m.sym),
      readings: readBook(code, members, ctx),
      regime: bookRegime(code, members, ctx),
    };
  }
  const readingIn = (b: BookCode, sym: string) => partial[b].readings.get(sym);
  const books = {} as Record<BookCode, OracleBook>;
  for (const code of BOOK_ORDER) {
    const p = partial[code];
    books[code] = {
      ...p,
      lanes: lanesOf(code, [...p.readings.values()], p.regime, ctx),
      cards: cardsOf(code, p.regime, readingIn, ctx),
    };
  }
  const records = universe.entries.map((e) => readingIn(e.books[0]!, e.sym)!);
  const setups = universe.entries.map((e, i) =>
    setupOf(
      records[i]!,
      e.books.map((b) => ({ book: b, r: readingIn(b, e.sym)!, regime: books[b].regime })),
      ctx,
    ),
  );
  return { ctx, books, records, setups };
}
