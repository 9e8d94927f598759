import { DIRECTORY_PRODUCT, DISCLAIMER, type BoardContent, type SymbolDirectory } from "@board/proto";

/** SPEC.md 2.5: the free symbol directory, with pointers to the reads that use a symbol. */
export function symbolsView(board: BoardContent): Omit<SymbolDirectory, "freshness"> {
  const sectors: Record<string, number> = {};
  for (const r of board.names) sectors[r.sector] = (sectors[r.sector] ?? 0) + 1;
  return {
    product: DIRECTORY_PRODUCT,
    free: true,
    asof_daily: board.asof_daily,
    count: board.names.length,
    usage: {
      name: "/api/board/name?sym=<SYM>[,<SYM>...] (up to 10, paid)",
      hold: "/api/board/hold?sym=<SYM> (paid; free key and wallet tiers)",
      sector: "/api/board/sector?name=<SECTOR> or ?etf=<ETF> (paid)",
      free_slice: "/api/board/free",
      preview: "/api/board/agent?preview=1",
      offers: "/api",
      docs: "/llms.txt",
    },
    sectors,
    symbols: board.names
      .map((r) => ({ sym: r.sym, name: r.name, sector: r.sector, bk: r.bk }))
      .sort((a, b) => a.sym.localeCompare(b.sym)),
    disclaimer: DISCLAIMER,
  };
}
