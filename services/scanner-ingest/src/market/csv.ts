// End-of-day daily bars from a folder of CSV files: the `csv` market data provider.
//
// Layout: one file per symbol, named `<SYM>.csv` exactly as the universe spells the symbol
// (AAPL.csv, BRK.B.csv, BTC-USD.csv), in CSV_DIR. Each file is
//
//   date,open,high,low,close,adj_close,volume
//   2026-11-19,228.10,231.40,227.55,230.90,230.12,41234500
//   2026-11-20,230.50,232.00,229.80,231.75,231.75,38900100
//
// - The header line is required, with exactly these columns in this order.
// - date is YYYY-MM-DD, strictly increasing from one row to the next (oldest first).
//   Equities and ETFs: one row per NYSE session (the New York trading day), none missing between
//   the first and last row, none on a weekend or holiday. Crypto: one row per UTC calendar day,
//   every day present.
// - open, high, low, close are the unadjusted prices, adj_close the split- and dividend-adjusted
//   close; all must be positive numbers, low <= open, close <= high.
// - volume is a non-negative number of shares (units), unadjusted.
// - Plain numbers only: no quotes, no thousands separators. Blank lines and CRLF line ends are fine.
//
// The engine gets adjusted bars: open, high and low are scaled by adj_close / close and the close
// is adj_close; volume is served as given.
//
// A file is read and validated in full on first use and again whenever its modification time or
// size changes, so a nightly job can replace files while the service runs (write to a temporary
// name and rename, so a half-written file is never read). Any problem throws an Error naming the
// file, the line and what is wrong; a missing file throws naming the symbol and the path.
//
// CSV is end-of-day data: intradayBar always returns null (there is no partial bar of the day).

import { stat, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { isTradingDay } from "@board/market-calendar";
import type { ProviderInfo } from "@board/proto";
import type { UniverseEntry } from "../universe.js";
import { fromEpochDay, toEpochDay } from "./days.js";
import type { Bar, MarketDataProvider } from "./provider.js";

export const CSV_COLUMNS = ["date", "open", "high", "low", "close", "adj_close", "volume"] as const;

/** What the provider needs to know of a name: crypto files follow the calendar, the rest NYSE. */
export type CsvEntry = Pick<UniverseEntry, "sym" | "kind">;

type Loaded = { mtimeMs: number; size: number; bars: Bar[] };

/** A symbol that names a file inside the folder: no path separators, no leading dot. */
const SAFE_SYMBOL = /^[A-Za-z0-9][A-Za-z0-9.-]*$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function fail(file: string, line: number, problem: string): never {
  throw new Error(`csv: ${file} line ${line}: ${problem}`);
}

function toNumber(file: string, line: number, column: string, text: string): number {
  const value = NUMBER.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) fail(file, line, `${column} is not a number: ${JSON.stringify(text)}`);
  return value;
}

/** The first NYSE session strictly between two dates, or null. */
function missingSessionBetween(prev: string, next: string): string | null {
  const to = toEpochDay(next);
  for (let d = toEpochDay(prev) + 1; d < to; d++) {
    const date = fromEpochDay(d);
    if (isTradingDay(date)) return date;
  }
  return null;
}

/**
 * Parses and validates one symbol file's text into adjusted bars, oldest first. `calendar` says
 * whether rows follow NYSE sessions (equities) or every calendar day (crypto). Throws on the first
 * problem, naming the file and line.
 */
export function parseDailyCsv(text: string, file: string, calendar: "trading" | "calendar"): Bar[] {
  const lines = text.split(/\r?\n/);
  let headerSeen = false;
  let prevDate: string | null = null;
  const bars: Bar[] = [];
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = (lines[i] ?? "").trim();
    if (raw === "") continue;
    const cells = raw.split(",").map((c) => c.trim());
    if (!headerSeen) {
      const header = cells.map((c, k) => (k === 0 ? c.replace(/^\uFEFF/, "") : c).toLowerCase());
      if (header.join(",") !== CSV_COLUMNS.join(",")) {
        fail(file, lineNo, `expected the header "${CSV_COLUMNS.join(",")}", found "${raw}"`);
      }
      headerSeen = true;
      continue;
    }
    if (cells.length !== CSV_COLUMNS.length) {
      fail(file, lineNo, `expected ${CSV_COLUMNS.length} columns (${CSV_COLUMNS.join(",")}), found ${cells.length}`);
    }
    const [date, openText, highText, lowText, closeText, adjText, volumeText] = cells as [string, string, string, string, string, string, string];
    if (!DATE.test(date)) fail(file, lineNo, `date is not YYYY-MM-DD: ${JSON.stringify(date)}`);
    try {
      toEpochDay(date);
    } catch {
      fail(file, lineNo, `date is not a calendar date: ${date}`);
    }
    const open = toNumber(file, lineNo, "open", openText);
    const high = toNumber(file, lineNo, "high", highText);
    const low = toNumber(file, lineNo, "low", lowText);
    const close = toNumber(file, lineNo, "close", closeText);
    const adjClose = toNumber(file, lineNo, "adj_close", adjText);
    const volume = toNumber(file, lineNo, "volume", volumeText);
    for (const [name, v] of [["open", open], ["high", high], ["low", low], ["close", close], ["adj_close", adjClose]] as const) {
      if (!(v > 0)) fail(file, lineNo, `${name} must be positive, found ${v}`);
    }
    if (volume < 0) fail(file, lineNo, `volume must not be negative, found ${volume}`);
    if (high < low) fail(file, lineNo, `high ${high} is below low ${low}`);
    if (open < low || open > high) fail(file, lineNo, `open ${open} is outside low..high (${low}..${high})`);
    if (close < low || close > high) fail(file, lineNo, `close ${close} is outside low..high (${low}..${high})`);

    if (calendar === "trading" && !isTradingDay(date)) fail(file, lineNo, `${date} is not an NYSE trading day`);
    if (prevDate !== null) {
      if (date <= prevDate) fail(file, lineNo, `date ${date} does not increase (previous row is ${prevDate})`);
      if (calendar === "calendar") {
        const expected = fromEpochDay(toEpochDay(prevDate) + 1);
        if (date !== expected) fail(file, lineNo, `gap: ${expected} is missing between ${prevDate} and ${date} (crypto needs every calendar day)`);
      } else {
        const missing = missingSessionBetween(prevDate, date);
        if (missing !== null) fail(file, lineNo, `gap: the NYSE session of ${missing} is missing between ${prevDate} and ${date}`);
      }
    }
    prevDate = date;

    const f = adjClose / close;
    bars.push({ date, open: open * f, high: high * f, low: low * f, close: adjClose, volume });
  }
  if (!headerSeen) fail(file, 1, `empty file: expected the header "${CSV_COLUMNS.join(",")}"`);
  return bars;
}

/** Index of the first bar with date > `through` (binary search on the sorted dates). */
function endIndex(bars: readonly Bar[], through: string): number {
  let lo = 0;
  let hi = bars.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bars[mid]!.date <= through) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class CsvProvider implements MarketDataProvider {
  readonly info: ProviderInfo;
  readonly intraday = false;
  readonly dir: string;
  readonly #kinds = new Map<string, CsvEntry["kind"]>();
  readonly #cache = new Map<string, Loaded>();
  /** One load per symbol at a time: concurrent reads of a symbol share it. */
  readonly #loading = new Map<string, Promise<Bar[]>>();

  constructor(dir: string, entries: readonly CsvEntry[]) {
    this.dir = resolve(dir);
    for (const e of entries) this.#kinds.set(e.sym, e.kind);
    // The detail is published with every board: no server path in it.
    this.info = { name: "csv", detail: "end-of-day daily bars from CSV files (adjusted); no intraday bar", simulated: false, delay: "end_of_day" };
  }

  async dailyBars(sym: string, through: string, count: number): Promise<Bar[]> {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`csv: count must be a non-negative integer, got ${count}`);
    toEpochDay(through); // validates the date
    const bars = await this.#barsOf(sym);
    const end = endIndex(bars, through);
    return bars.slice(Math.max(0, end - count), end).map((b) => ({ ...b }));
  }

  /** Always null: CSV files hold end-of-day data, there is no partial bar of the day. */
  async intradayBar(sym: string, _at: Date): Promise<Bar | null> {
    this.#kindOf(sym);
    return null;
  }

  /** The path of a symbol's file. */
  fileOf(sym: string): string {
    return join(this.dir, `${sym}.csv`);
  }

  #kindOf(sym: string): CsvEntry["kind"] {
    const kind = this.#kinds.get(sym);
    if (kind === undefined) throw new RangeError(`csv: unknown symbol "${sym}" (not in the universe)`);
    return kind;
  }

  #barsOf(sym: string): Promise<Bar[]> {
    const pending = this.#loading.get(sym);
    if (pending) return pending;
    const p = this.#load(sym).finally(() => this.#loading.delete(sym));
    this.#loading.set(sym, p);
    return p;
  }

  async #load(sym: string): Promise<Bar[]> {
    const kind = this.#kindOf(sym);
    if (!SAFE_SYMBOL.test(sym)) throw new RangeError(`csv: symbol "${sym}" cannot name a file`);
    const file = this.fileOf(sym);
    let st;
    try {
      st = await stat(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") throw new Error(`csv: no data for ${sym}: ${file} does not exist`);
      throw new Error(`csv: cannot read ${file} for ${sym}: ${(err as Error).message}`);
    }
    const cached = this.#cache.get(sym);
    if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return cached.bars;
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      throw new Error(`csv: cannot read ${file} for ${sym}: ${(err as Error).message}`);
    }
    const bars = parseDailyCsv(text, file, kind === "crypto" ? "calendar" : "trading");
    this.#cache.set(sym, { mtimeMs: st.mtimeMs, size: st.size, bars });
    return bars;
  }
}
