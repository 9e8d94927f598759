import {
  DISCLAIMER,
  PRODUCT,
  SectorLabel,
  type BoardContent,
  type Card,
  type SectorDirectoryView,
  type SectorsView,
  type SectorView,
  type Snapshot,
} from "@board/proto";
import { byOpportunity, readHead, type NameReads } from "./name-read.js";

/**
 * The sector ETF cards as every book shares them. ETF scoring does not depend on the
 * book, so each book carries the same cards; only `green` (the book's ladder) differs.
 * Here `green` says whether any book calls the sector green; SectorsView.green_by_book
 * says which.
 */
export type SectorCards = ReadonlyMap<SectorLabel, Card>;

const SCORED_FIELDS = ["sym", "label", "score", "pct", "light", "state", "above_sma50"] as const satisfies readonly (keyof Card)[];

/**
 * Collects the books' sector cards in SectorLabel order, checking that every book scores a
 * sector's ETF alike and, when the snapshot names the sector ETFs, that each card is that ETF.
 */
export function sectorCards(board: BoardContent, sectorEtfs?: Snapshot["sector_etfs"]): SectorCards {
  const found = new Map<SectorLabel, Card>();
  for (const code of board.book_order) {
    for (const card of board.books[code]?.sector_cards ?? []) {
      if (card.label === "Index") continue;
      const etf = sectorEtfs?.[card.label];
      if (etf !== undefined && etf !== card.sym)
        throw new Error(`book ${code}: the ${card.label} card is ${card.sym}, but the snapshot's sector ETF is ${etf}`);
      const seen = found.get(card.label);
      if (!seen) {
        found.set(card.label, card);
        continue;
      }
      const differs = SCORED_FIELDS.filter((f) => seen[f] !== card[f]);
      if (differs.length > 0) throw new Error(`book ${code}: the ${card.label} card disagrees with another book's on ${differs.join(", ")}`);
      if (card.green && !seen.green) found.set(card.label, { ...seen, green: true });
    }
  }
  const ordered = new Map<SectorLabel, Card>();
  for (const label of SectorLabel.options) {
    const card = found.get(label);
    if (card) ordered.set(label, card);
  }
  return ordered;
}

/** /api/board/sectors: every sector ETF scored, best first, and which sectors each book calls green. */
export function sectorsView(board: BoardContent, cards: SectorCards): Omit<SectorsView, "freshness"> {
  return {
    ...readHead(board),
    sectors: [...cards]
      .sort(([, a], [, b]) => b.score - a.score || b.pct - a.pct)
      .map(([name, card]) => ({ name, ...card })),
    green_by_book: Object.fromEntries(
      board.book_order.map((code) => [code, board.books[code]?.regime.ladder.sectors ?? []]),
    ) as SectorsView["green_by_book"],
    disclaimer: DISCLAIMER,
  };
}

export type SectorContent = Omit<SectorView, "freshness">;
export type SectorDirectoryContent = Omit<SectorDirectoryView, "freshness" | "unknown">;

/** /api/board/sector for every sector with an ETF card: members ranked by opportunity, plus the ETF row. */
export function sectorViews(board: BoardContent, cards: SectorCards, reads: NameReads): SectorContent[] {
  const head = readHead(board);
  return [...cards].map(([sector, etf]) => ({
    ...head,
    sector,
    etf,
    members: board.names
      .filter((r) => r.sector === sector)
      .sort(byOpportunity)
      .map((r) => reads.of(r.sym, `sector ${sector}`)),
    disclaimer: DISCLAIMER,
  }));
}

/** The sector directory an unknown or missing sector parameter answers (its `unknown` is added per read). */
export function sectorDirectory(board: BoardContent, cards: SectorCards): SectorDirectoryContent {
  const members = new Map<string, number>();
  for (const r of board.names) members.set(r.sector, (members.get(r.sector) ?? 0) + 1);
  return {
    product: PRODUCT,
    sectors: [...cards].map(([name, card]) => ({ name, etf: card.sym, members: members.get(name) ?? 0 })),
  };
}
