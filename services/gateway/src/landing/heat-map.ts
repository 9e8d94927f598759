import { SectorLabel, type BookCode, type EntryState, type FullBoard } from "@board/proto";
import { sectorPath } from "./sector-path.js";
import { html, type Html } from "../http/html.js";

/** Five score bands; each has a colour and a word, so the map reads without colour too. */
export const HEAT_BANDS = [
  { min: 0, word: "very low" },
  { min: 20, word: "low" },
  { min: 40, word: "middle" },
  { min: 60, word: "high" },
  { min: 80, word: "very high" },
] as const;

export type HeatBand = 0 | 1 | 2 | 3 | 4;

export interface HeatCell {
  sector: SectorLabel;
  /** 0-100, rounded for display. */
  score: number;
  band: HeatBand;
  /** "etf": the sector ETF's card score; "names": the mean opportunity of the sector's names (no card on the board). */
  basis: "etf" | "names";
  etf: string | null;
  state: EntryState | null;
  /** How many of the board's names are in the sector. */
  names: number;
  /** Books whose regime verdict calls the sector green (the permission ladder). */
  greenIn: BookCode[];
}

export function bandOf(score: number): HeatBand {
  let band: HeatBand = 0;
  HEAT_BANDS.forEach((b, i) => {
    if (score >= b.min) band = i as HeatBand;
  });
  return band;
}

/**
 * One cell per sector of the board, highest score first: the sector ETF's card where a book
 * carries one (every book scores an ETF alike), else the mean opportunity of its names.
 */
export function heatCells(board: FullBoard): HeatCell[] {
  const cards = new Map<SectorLabel, { sym: string; score: number; state: EntryState }>();
  for (const code of board.book_order) {
    for (const card of board.books[code]?.sector_cards ?? []) {
      if (card.label !== "Index" && !cards.has(card.label)) cards.set(card.label, card);
    }
  }
  const members = new Map<SectorLabel, number[]>();
  for (const r of board.names) {
    if (r.sector === "Index") continue;
    const scores = members.get(r.sector) ?? [];
    scores.push(r.opp_score);
    members.set(r.sector, scores);
  }
  const cells: HeatCell[] = [];
  for (const sector of SectorLabel.options) {
    const card = cards.get(sector);
    const scores = members.get(sector) ?? [];
    if (!card && scores.length === 0) continue;
    const raw = card ? card.score : scores.reduce((a, b) => a + b, 0) / scores.length;
    const score = Math.round(raw);
    cells.push({
      sector,
      score,
      band: bandOf(score),
      basis: card ? "etf" : "names",
      etf: card?.sym ?? null,
      state: card?.state ?? null,
      names: scores.length,
      greenIn: board.book_order.filter((code) => board.books[code]?.regime.ladder.sectors.includes(sector)),
    });
  }
  const order = SectorLabel.options;
  return cells.sort((a, b) => b.score - a.score || order.indexOf(a.sector) - order.indexOf(b.sector));
}

export function renderHeatMap(cells: readonly HeatCell[]): Html {
  return html`<ul class="heat" aria-label="Sectors by score, highest first">${cells.map(renderCell)}</ul>
<ul class="legend" aria-label="Score bands">${HEAT_BANDS.map(
    (b, i) => html`<li class="band-${i}">${b.min}–${HEAT_BANDS[i + 1] ? HEAT_BANDS[i + 1]!.min - 1 : 100}: ${b.word}</li>`,
  )}</ul>`;
}

function renderCell(c: HeatCell): Html {
  const basis = c.basis === "etf" ? html`ETF ${c.etf}${c.state ? html` · ${c.state}` : ""}` : html`mean of its names`;
  const green = c.greenIn.length > 0 ? html` · green in ${c.greenIn.join(", ")}` : "";
  return html`<li class="band-${c.band}" data-sector="${c.sector}"><a class="sector" href="${sectorPath(c.sector)}">${c.sector}</a><span class="score">${c.score}</span> <span class="muted">/ 100 · ${HEAT_BANDS[c.band].word}</span><span class="detail">${basis}</span><span class="detail">${c.names} ${c.names === 1 ? "name" : "names"}${green}</span></li>`;
}
