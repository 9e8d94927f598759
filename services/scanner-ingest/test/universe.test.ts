import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SectorLabel } from "@board/proto";
import { afterEach, describe, expect, it } from "vitest";
import { loadUniverse, UNIVERSE_SIZE } from "../src/universe.js";

const DATA = fileURLToPath(new URL("../data/universe/", import.meta.url));

describe("loadUniverse", () => {
  const temps: string[] = [];
  afterEach(() => {
    for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the data directory with universe.csv passed through `edit`. */
  function editedCopy(edit: (csv: string) => string): string {
    const dir = mkdtempSync(join(tmpdir(), "universe-"));
    temps.push(dir);
    cpSync(DATA, dir, { recursive: true });
    const file = join(dir, "universe.csv");
    writeFileSync(file, edit(readFileSync(file, "utf8")));
    return dir;
  }

  it("loads 565 names in 20 sectors plus Index", () => {
    const u = loadUniverse();
    expect(u.entries).toHaveLength(UNIVERSE_SIZE);
    expect(UNIVERSE_SIZE).toBe(565);
    const sectors = new Set(u.entries.map((e) => e.sector));
    expect(sectors.size).toBe(21);
    expect(sectors.has("Index")).toBe(true);
    for (const label of SectorLabel.options) expect(sectors.has(label)).toBe(true);
    expect(new Set(u.entries.map((e) => e.sym)).size).toBe(565);
  });

  it("maps every sector label to an ETF that is itself in the universe", () => {
    const u = loadUniverse();
    expect(Object.keys(u.sectorEtfs).sort()).toEqual([...SectorLabel.options].sort());
    const syms = new Set(u.entries.map((e) => e.sym));
    for (const etf of Object.values(u.sectorEtfs)) expect(syms.has(etf)).toBe(true);
    expect(u.sectorEtfs.Semis).toBe("SMH");
  });

  it("classifies kinds and keeps the book order of the CSV", () => {
    const u = loadUniverse();
    const bySym = new Map(u.entries.map((e) => [e.sym, e]));
    expect(bySym.get("BTC-USD")).toMatchObject({ kind: "crypto", books: ["crypto"], sector: "Crypto" });
    expect(bySym.get("ETH-USD")?.kind).toBe("crypto");
    expect(bySym.get("SPY")).toMatchObject({ kind: "etf", books: ["macro"], sector: "Index" });
    expect(bySym.get("AAPL")).toMatchObject({ kind: "stock", books: ["spx", "qqq"] });
    const counts = { stock: 0, etf: 0, crypto: 0 };
    for (const e of u.entries) counts[e.kind]++;
    expect(counts).toEqual({ stock: 517, etf: 46, crypto: 2 });
    // Names with commas inside quotes survive.
    expect(u.entries.some((e) => e.name.includes(","))).toBe(true);
  });

  it("accepts the default directory as a URL or a path", () => {
    expect(loadUniverse(DATA).entries).toHaveLength(565);
    expect(loadUniverse(new URL("../data/universe/", import.meta.url)).entries).toHaveLength(565);
  });

  it("names the row of an unknown book code", () => {
    const dir = editedCopy((csv) => csv.replace("MMM,3M,spx,", "MMM,3M,spx nyse,"));
    expect(() => loadUniverse(dir)).toThrow(/universe\.csv line 2 \(MMM\): unknown book code "nyse"/);
  });

  it("names the row of an unknown label", () => {
    const dir = editedCopy((csv) => csv.replace("MMM,3M,spx,Industrials,", "MMM,3M,spx,Widgets,"));
    expect(() => loadUniverse(dir)).toThrow(/line 2 \(MMM\): unknown label "Widgets"/);
  });

  it("rejects a label ETF that disagrees with label_etf.csv", () => {
    const dir = editedCopy((csv) => csv.replace("MMM,3M,spx,Industrials,XLI,", "MMM,3M,spx,Industrials,XLK,"));
    expect(() => loadUniverse(dir)).toThrow(/\(MMM\): label ETF "XLK" disagrees/);
  });

  it("rejects a universe that is not 565 names", () => {
    const dir = editedCopy((csv) => csv.split("\n").filter((l) => !l.startsWith("MMM,")).join("\n"));
    expect(() => loadUniverse(dir)).toThrow(/564 names, expected 565/);
  });

  it("rejects a duplicate symbol", () => {
    const dir = editedCopy((csv) => csv.replace("AOS,A. O. Smith,", "MMM,A. O. Smith,"));
    expect(() => loadUniverse(dir)).toThrow(/line 3 \(MMM\): duplicate symbol/);
  });
});
