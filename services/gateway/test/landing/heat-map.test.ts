import { SectorLabel } from "@board/proto";
import { describe, expect, it } from "vitest";
import { bandOf, heatCells, HEAT_BANDS, renderHeatMap } from "../../src/landing/heat-map.js";
import { delayedBoard } from "./support.js";

/** A cell's text as a reader without colour gets it. */
const textOf = (li: string) => li.replace(/<[^>]+>/g, "").replace(/&amp;/g, "&");

describe("heat map", () => {
  it("has one cell per sector, scored by its ETF card, highest first, with the books that call it green", () => {
    const board = delayedBoard();
    const cells = heatCells(board);
    expect(cells.map((c) => c.sector).sort()).toEqual([...SectorLabel.options].sort());
    const cards = board.books.spx!.sector_cards;
    for (const c of cells) {
      const card = cards.find((k) => k.label === c.sector)!;
      expect(c).toMatchObject({ basis: "etf", etf: card.sym, score: card.score, state: card.state, band: bandOf(card.score) });
      expect(c.names).toBe(board.names.filter((r) => r.sector === c.sector).length);
      expect(c.greenIn).toEqual(board.book_order.filter((b) => board.books[b]!.regime.ladder.sectors.includes(c.sector)));
    }
    expect(cells.map((c) => c.score)).toEqual([...cells.map((c) => c.score)].sort((a, b) => b - a));
    // The fixture's SELECTIVE verdict opens Semis in spx and qqq.
    expect(cells.find((c) => c.sector === "Semis")!.greenIn).toEqual(["spx", "qqq"]);
  });

  it("falls back to the mean opportunity of a sector's names when no book carries its card", () => {
    const board = delayedBoard((b) => ({
      ...b,
      books: Object.fromEntries(Object.entries(b.books).map(([code, book]) => [code, { ...book, sector_cards: book.sector_cards.filter((c) => c.label !== "Energy") }])) as typeof b.books,
    }));
    const energy = heatCells(board).find((c) => c.sector === "Energy")!;
    const scores = board.names.filter((r) => r.sector === "Energy").map((r) => r.opp_score);
    expect(energy).toMatchObject({ basis: "names", etf: null, state: null, score: Math.round(scores.reduce((a, b) => a + b, 0) / scores.length) });
  });

  it.each([
    [0, 0],
    [19, 0],
    [20, 1],
    [39, 1],
    [40, 2],
    [59, 2],
    [60, 3],
    [79, 3],
    [80, 4],
    [100, 4],
  ])("score %i is band %i", (score, band) => {
    expect(bandOf(score)).toBe(band);
  });

  it("renders each cell with its sector label, score and band word as text, coloured by a band class", () => {
    const cells = heatCells(delayedBoard());
    const out = renderHeatMap(cells).markup;
    const items = [...out.matchAll(/<li class="band-(\d)" data-sector="([^"]+)">(.*?)<\/li>/g)];
    expect(items).toHaveLength(cells.length);
    items.forEach(([, band, sector, inner], i) => {
      const cell = cells[i]!;
      expect(Number(band)).toBe(cell.band);
      expect(sector!.replace(/&amp;/g, "&")).toBe(cell.sector);
      const text = textOf(inner!);
      expect(text).toContain(cell.sector);
      expect(text).toContain(`${cell.score} / 100 · ${HEAT_BANDS[cell.band].word}`);
      expect(text).toContain(`ETF ${cell.etf}`);
    });
    // The one label with an ampersand is escaped in content and attribute alike.
    // Each label links to its sector page.
    expect(out).toContain('data-sector="Biotech &amp; Pharma"><a class="sector" href="/board/sector/biotech-pharma">Biotech &amp; Pharma</a>');
    expect(out).not.toContain("Biotech & Pharma");
  });
});
