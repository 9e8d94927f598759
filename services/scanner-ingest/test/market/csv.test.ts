import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isTradingDay } from "@board/market-calendar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "../../src/market/days.js";
import { CsvProvider, parseDailyCsv } from "../../src/market/csv.js";

const HEADER = "date,open,high,low,close,adj_close,volume";
const ENTRIES = [
  { sym: "AAPL", kind: "stock" as const },
  { sym: "BRK.B", kind: "stock" as const },
  { sym: "SPY", kind: "etf" as const },
  { sym: "BTC-USD", kind: "crypto" as const },
  { sym: "MSFT", kind: "stock" as const },
];

/** Every date from `from` to `to` that `keep` accepts. */
function datesBetween(from: string, to: string, keep: (d: string) => boolean): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) if (keep(d)) out.push(d);
  return out;
}

/** A row per date: close 100 + i, adjusted close half of it (a 2:1 split after the data). */
function rows(dates: readonly string[]): string[] {
  return dates.map((d, i) => {
    const c = 100 + i;
    return `${d},${c - 0.5},${c + 1},${c - 1},${c},${c / 2},${1000 + i}`;
  });
}

function file(lines: readonly string[]): string {
  return `${[HEADER, ...lines].join("\n")}\n`;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "csv-provider-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A fresh folder per case, so files of one test never leak into another. */
async function folderWith(files: Record<string, string>): Promise<string> {
  const sub = await mkdtemp(join(dir, "case-"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(sub, name), text);
  return sub;
}

const NOV = datesBetween("2026-11-02", "2026-11-30", isTradingDay); // Thanksgiving (11-26) is no session

describe("CsvProvider", () => {
  it("serves adjusted bars, oldest first, ending at `through`", async () => {
    const folder = await folderWith({ "AAPL.csv": file(rows(NOV)), "BRK.B.csv": file(rows(NOV)) });
    const p = new CsvProvider(folder, ENTRIES);
    expect(p.info).toEqual({ name: "csv", detail: expect.stringContaining("CSV"), simulated: false, delay: "end_of_day" });
    expect(p.info.detail).not.toContain(folder);

    const bars = await p.dailyBars("AAPL", "2026-11-20", 3);
    expect(bars.map((b) => b.date)).toEqual(["2026-11-18", "2026-11-19", "2026-11-20"]);
    const i = NOV.indexOf("2026-11-20");
    const c = 100 + i;
    expect(bars[2]).toEqual({ date: "2026-11-20", open: (c - 0.5) / 2, high: (c + 1) / 2, low: (c - 1) / 2, close: c / 2, volume: 1000 + i });

    // A weekend `through` ends on Friday; a count beyond the history gives all of it.
    expect((await p.dailyBars("AAPL", "2026-11-22", 1))[0]?.date).toBe("2026-11-20");
    expect(await p.dailyBars("AAPL", "2026-12-31", 500)).toHaveLength(NOV.length);
    expect(await p.dailyBars("AAPL", "2026-10-01", 10)).toEqual([]);
    expect(await p.dailyBars("AAPL", "2026-11-20", 0)).toEqual([]);
    expect(await p.dailyBars("BRK.B", "2026-11-30", 1)).toHaveLength(1);
    // Across the Thanksgiving holiday without a gap.
    expect((await p.dailyBars("AAPL", "2026-11-27", 2)).map((b) => b.date)).toEqual(["2026-11-25", "2026-11-27"]);
  });

  it("returns copies: a caller mutating a bar does not change the next answer", async () => {
    const folder = await folderWith({ "AAPL.csv": file(rows(NOV)) });
    const p = new CsvProvider(folder, ENTRIES);
    const [first] = await p.dailyBars("AAPL", "2026-11-20", 1);
    first!.close = -1;
    expect((await p.dailyBars("AAPL", "2026-11-20", 1))[0]!.close).toBeGreaterThan(0);
  });

  it("has no intraday bar (end-of-day data)", async () => {
    const folder = await folderWith({ "AAPL.csv": file(rows(NOV)) });
    const p = new CsvProvider(folder, ENTRIES);
    expect(await p.intradayBar("AAPL", new Date("2026-11-20T16:00:00Z"))).toBeNull();
    expect(await p.intradayBar("BTC-USD", new Date("2026-11-20T16:00:00Z"))).toBeNull();
  });

  it("names the symbol and path of a missing file, and rejects symbols outside the universe", async () => {
    const folder = await folderWith({});
    const p = new CsvProvider(folder, ENTRIES);
    await expect(p.dailyBars("MSFT", "2026-11-20", 5)).rejects.toThrow(`csv: no data for MSFT: ${join(folder, "MSFT.csv")} does not exist`);
    await expect(p.dailyBars("NVDA", "2026-11-20", 5)).rejects.toThrow(/unknown symbol "NVDA"/);
  });

  it("accepts CRLF line ends, blank lines and a byte-order mark", async () => {
    const text = `\uFEFF${[HEADER, ...rows(NOV.slice(0, 3)), ""].join("\r\n")}\r\n\r\n`;
    const folder = await folderWith({ "SPY.csv": text });
    const bars = await new CsvProvider(folder, ENTRIES).dailyBars("SPY", "2026-11-30", 10);
    expect(bars.map((b) => b.date)).toEqual(NOV.slice(0, 3));
  });

  it("reads a file again once it changes", async () => {
    const folder = await folderWith({ "AAPL.csv": file(rows(NOV.slice(0, 5))) });
    const p = new CsvProvider(folder, ENTRIES);
    expect(await p.dailyBars("AAPL", "2026-11-30", 100)).toHaveLength(5);
    await writeFile(join(folder, "AAPL.csv"), file(rows(NOV.slice(0, 8))));
    expect(await p.dailyBars("AAPL", "2026-11-30", 100)).toHaveLength(8);
  });

  describe("malformed files", () => {
    const good = rows(NOV.slice(0, 4)); // 11-02 .. 11-05; the header is line 1, good[k] is line k + 2
    const cases: [string, string, RegExp][] = [
      ["no header", rows(NOV.slice(0, 2)).join("\n"), /line 1: expected the header "date,open,high,low,close,adj_close,volume"/],
      ["an empty file", "", /line 1: empty file/],
      ["a wrong header", file(good).replace("adj_close", "adjclose"), /line 1: expected the header/],
      ["a missing column", file([...good.slice(0, 2), "2026-11-04,1,2,0.5,1.5,1.5"]), /line 4: expected 7 columns .* found 6/],
      ["an extra column", file([...good.slice(0, 1), "2026-11-03,1,2,0.5,1.5,1.5,100,7"]), /line 3: expected 7 columns .* found 8/],
      ["a non-number", file([...good.slice(0, 2), "2026-11-04,1,2,abc,1.5,1.5,100"]), /line 4: low is not a number: "abc"/],
      ["an empty cell", file([...good.slice(0, 2), "2026-11-04,1,2,0.5,,1.5,100"]), /line 4: close is not a number: ""/],
      ["high below low", file([...good.slice(0, 2), "2026-11-04,1,0.5,2,1,1,100"]), /line 4: high 0.5 is below low 2/],
      ["a zero price", file([...good.slice(0, 2), "2026-11-04,0,2,0,1,1,100"]), /line 4: open must be positive, found 0/],
      ["a negative adjusted close", file([...good.slice(0, 2), "2026-11-04,1,2,0.5,1,-1,100"]), /line 4: adj_close must be positive, found -1/],
      ["a negative volume", file([...good.slice(0, 2), "2026-11-04,1,2,0.5,1,1,-5"]), /line 4: volume must not be negative/],
      ["a close outside the range", file([...good.slice(0, 2), "2026-11-04,1,2,0.5,3,3,100"]), /line 4: close 3 is outside low..high/],
      ["a bad date", file([...good.slice(0, 2), "11/04/2026,1,2,0.5,1,1,100"]), /line 4: date is not YYYY-MM-DD: "11\/04\/2026"/],
      ["an impossible date", file([...good.slice(0, 2), "2026-02-30,1,2,0.5,1,1,100"]), /line 4: date is not a calendar date: 2026-02-30/],
      ["a repeated date", file([...good.slice(0, 3), good[2]!]), /line 5: date 2026-11-04 does not increase \(previous row is 2026-11-04\)/],
      ["a date going back", file([good[1]!, good[0]!]), /line 3: date 2026-11-02 does not increase \(previous row is 2026-11-03\)/],
      ["a weekend row", file([...good.slice(0, 4), "2026-11-07,1,2,0.5,1,1,100"]), /line 6: 2026-11-07 is not an NYSE trading day/],
      ["a holiday row", file(["2026-11-25,1,2,0.5,1,1,100", "2026-11-26,1,2,0.5,1,1,100"]), /line 3: 2026-11-26 is not an NYSE trading day/],
    ];
    it.each(cases)("rejects %s, naming file and line", async (_name, text, message) => {
      const folder = await folderWith({ "AAPL.csv": text });
      const p = new CsvProvider(folder, ENTRIES);
      const err = await p.dailyBars("AAPL", "2026-11-30", 10).catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toContain(`csv: ${join(folder, "AAPL.csv")} line`);
      expect((err as Error).message).toMatch(message);
    });
  });

  it("detects a missing NYSE session between two equity rows", async () => {
    const dates = NOV.filter((d) => d !== "2026-11-18");
    const folder = await folderWith({ "AAPL.csv": file(rows(dates)) });
    const line = dates.indexOf("2026-11-19") + 2;
    await expect(new CsvProvider(folder, ENTRIES).dailyBars("AAPL", "2026-11-30", 5)).rejects.toThrow(
      `line ${line}: gap: the NYSE session of 2026-11-18 is missing between 2026-11-17 and 2026-11-19`,
    );
  });

  it("detects a missing session across a weekend", async () => {
    const dates = NOV.filter((d) => d !== "2026-11-16"); // a Monday
    const folder = await folderWith({ "SPY.csv": file(rows(dates)) });
    await expect(new CsvProvider(folder, ENTRIES).dailyBars("SPY", "2026-11-30", 5)).rejects.toThrow(
      "gap: the NYSE session of 2026-11-16 is missing between 2026-11-13 and 2026-11-17",
    );
  });

  it("needs every calendar day for crypto, weekends and holidays included", async () => {
    const days = datesBetween("2026-11-20", "2026-11-30", () => true);
    const folder = await folderWith({ "BTC-USD.csv": file(rows(days)) });
    const bars = await new CsvProvider(folder, ENTRIES).dailyBars("BTC-USD", "2026-11-29", 4);
    expect(bars.map((b) => b.date)).toEqual(["2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29"]);

    const gappy = days.filter((d) => d !== "2026-11-22"); // a Sunday
    const bad = await folderWith({ "BTC-USD.csv": file(rows(gappy)) });
    await expect(new CsvProvider(bad, ENTRIES).dailyBars("BTC-USD", "2026-11-29", 4)).rejects.toThrow(
      `${join(bad, "BTC-USD.csv")} line 4: gap: 2026-11-22 is missing between 2026-11-21 and 2026-11-23 (crypto needs every calendar day)`,
    );
  });

  it("parseDailyCsv works on text alone", () => {
    expect(parseDailyCsv(file(["2026-11-20,10,12,9,11,5.5,100"]), "x.csv", "trading")).toEqual([
      { date: "2026-11-20", open: 5, high: 6, low: 4.5, close: 5.5, volume: 100 },
    ]);
  });
});
