// The board universe: the 565 names of data/universe/universe.csv and the one ETF per sector label
// of label_etf.csv, parsed and validated once. A malformed row fails loudly, naming the file and row.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "csv-parse/sync";
import { BookCode, SectorLabel, SectorOrIndex, Symbol } from "@board/proto";

export type UniverseKind = "stock" | "etf" | "crypto";

export type UniverseEntry = {
  sym: string;
  name: string;
  /** Books the name belongs to, in the CSV's order; the first is its primary book. */
  books: BookCode[];
  sector: SectorOrIndex;
  kind: UniverseKind;
};

export type Universe = {
  entries: UniverseEntry[];
  /** One ETF per sector label (label_etf.csv). */
  sectorEtfs: Record<SectorLabel, string>;
};

export const UNIVERSE_SIZE = 565;

const DEFAULT_DIR = new URL("../data/universe/", import.meta.url);

type Row = Record<string, string>;

function readCsv(file: string, required: readonly string[]): Row[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`universe: cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  const rows = parse(text, { columns: true, skip_empty_lines: true, trim: true }) as Row[];
  const header = rows[0] ? Object.keys(rows[0]) : [];
  for (const col of required) {
    if (!header.includes(col)) throw new Error(`universe: ${file} lacks the column "${col}"`);
  }
  return rows;
}

/** Row n of a CSV as a person counts it: the header is line 1, the first data row line 2. */
function where(file: string, index: number, sym: string | undefined): string {
  return `${file} line ${index + 2}${sym ? ` (${sym})` : ""}`;
}

function loadSectorEtfs(file: string): Record<SectorLabel, string> {
  const rows = readCsv(file, ["label", "sector_etf"]);
  const out: Partial<Record<SectorLabel, string>> = {};
  rows.forEach((row, i) => {
    const label = SectorLabel.safeParse(row.label);
    if (!label.success) throw new Error(`universe: ${where(file, i, row.label)}: unknown sector label "${row.label}"`);
    if (out[label.data] !== undefined) throw new Error(`universe: ${where(file, i, row.label)}: label listed twice`);
    const etf = row.sector_etf ?? "";
    if (!Symbol.safeParse(etf).success) throw new Error(`universe: ${where(file, i, row.label)}: bad ETF symbol "${etf}"`);
    out[label.data] = etf;
  });
  const missing = SectorLabel.options.filter((l) => out[l] === undefined);
  if (missing.length > 0) throw new Error(`universe: ${file} has no ETF for ${missing.join(", ")}`);
  return out as Record<SectorLabel, string>;
}

function kindOf(books: readonly BookCode[], source: string): UniverseKind {
  if (books.includes("crypto")) return "crypto";
  return source === "etf" ? "etf" : "stock";
}

/**
 * Loads and validates the universe from `dir` (default: the service's data/universe/). Throws when
 * a row has an unknown book code or label, a malformed or duplicate symbol, a label ETF that
 * disagrees with label_etf.csv, or when the count is not 565.
 */
export function loadUniverse(dir: string | URL = DEFAULT_DIR): Universe {
  const base = typeof dir === "string" ? dir : fileURLToPath(dir);
  const sectorEtfs = loadSectorEtfs(join(base, "label_etf.csv"));
  const file = join(base, "universe.csv");
  const rows = readCsv(file, ["symbol", "name", "books", "label", "label_etf", "gics_source"]);

  const seen = new Set<string>();
  const entries = rows.map((row, i): UniverseEntry => {
    const sym = row.symbol ?? "";
    const at = where(file, i, sym);
    if (!Symbol.safeParse(sym).success) throw new Error(`universe: ${at}: malformed symbol "${sym}"`);
    if (seen.has(sym)) throw new Error(`universe: ${at}: duplicate symbol`);
    seen.add(sym);
    const name = row.name ?? "";
    if (name === "") throw new Error(`universe: ${at}: empty name`);

    const codes = (row.books ?? "").split(/\s+/).filter((c) => c !== "");
    if (codes.length === 0) throw new Error(`universe: ${at}: no book`);
    const books = codes.map((code) => {
      const parsed = BookCode.safeParse(code);
      if (!parsed.success) throw new Error(`universe: ${at}: unknown book code "${code}" (expected ${BookCode.options.join(", ")})`);
      return parsed.data;
    });
    if (new Set(books).size !== books.length) throw new Error(`universe: ${at}: a book is listed twice`);

    const sector = SectorOrIndex.safeParse(row.label);
    if (!sector.success) throw new Error(`universe: ${at}: unknown label "${row.label}"`);
    const labelEtf = row.label_etf ?? "";
    if (sector.data === "Index") {
      if (labelEtf !== "") throw new Error(`universe: ${at}: an Index name has no label ETF, found "${labelEtf}"`);
    } else if (labelEtf !== sectorEtfs[sector.data]) {
      throw new Error(`universe: ${at}: label ETF "${labelEtf}" disagrees with label_etf.csv (${sectorEtfs[sector.data]})`);
    }
    return { sym, name, books, sector: sector.data, kind: kindOf(books, row.gics_source ?? "") };
  });

  if (entries.length !== UNIVERSE_SIZE) {
    throw new Error(`universe: ${file} has ${entries.length} names, expected ${UNIVERSE_SIZE}`);
  }
  for (const label of SectorLabel.options) {
    if (!seen.has(sectorEtfs[label])) throw new Error(`universe: the ${label} ETF ${sectorEtfs[label]} is not in ${file}`);
  }
  return { entries, sectorEtfs };
}
