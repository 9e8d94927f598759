// Property tests (fast-check) of the scoring on small random universes of random-walk bars:
// ranges of every score and percentile, the spread of percentiles, determinism, and independence
// from the order of the universe.

import { Book, BoardSignals, NameRecord, SectorLabel, type BookCode } from "@board/proto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays } from "../../src/market/days.js";
import type { Bar } from "../../src/market/provider.js";
import { scoreBoard, type NameBars, type ScoreInput } from "../../src/scoring/board.js";
import { percentileRanks } from "../../src/scoring/percentile.js";
import type { Universe, UniverseEntry } from "../../src/universe.js";

/** mulberry32: a tiny seeded generator for the bar paths. */
function rng(seed: number): () => number {
  let s = seed | 0;
  return () => {
    let t = (s = (s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ETFS: Record<SectorLabel, string> = {
  Industrials: "XLI",
  Financials: "XLF",
  "Real Estate": "XLRE",
  Energy: "XLE",
  "Consumer Discretionary": "XLY",
  Commodities: "DBC",
  "Health Care": "XLV",
  "Consumer Staples": "XLP",
  "Information Technology": "XLK",
  Utilities: "XLU",
  Materials: "XLB",
  Income: "HYG",
  "Communication Services": "XLC",
  "Biotech & Pharma": "IBB",
  Semis: "SMH",
  Bonds: "TLT",
  "Internet & Media": "FDN",
  "Precious Metals": "GLD",
  Software: "IGV",
  Crypto: "IBIT",
};

/** A small universe: the 20 sector ETFs, SPY, QQQ, IEF, BTC-USD, ETH-USD and `stocks` stocks. */
function miniUniverse(stocks: number, seed: number): Universe {
  const r = rng(seed);
  const labels = SectorLabel.options.filter((l) => l !== "Crypto");
  const books: BookCode[][] = [["spx"], ["spx", "qqq"], ["qqq"]];
  const entries: UniverseEntry[] = [
    ...SectorLabel.options.map((l): UniverseEntry => ({ sym: ETFS[l], name: `${l} ETF`, books: ["macro"], sector: l, kind: "etf" })),
    { sym: "SPY", name: "S&P 500", books: ["macro"], sector: "Index", kind: "etf" },
    { sym: "QQQ", name: "Nasdaq-100", books: ["macro"], sector: "Index", kind: "etf" },
    { sym: "IEF", name: "7-10y Treasuries", books: ["macro"], sector: "Bonds", kind: "etf" },
    { sym: "BTC-USD", name: "Bitcoin", books: ["crypto"], sector: "Crypto", kind: "crypto" },
    { sym: "ETH-USD", name: "Ethereum", books: ["crypto"], sector: "Crypto", kind: "crypto" },
    ...Array.from(
      { length: stocks },
      (_, i): UniverseEntry => ({
        sym: `S${String(i).padStart(3, "0")}`,
        name: `Stock ${i}`,
        books: books[Math.floor(r() * books.length)]!,
        sector: labels[Math.floor(r() * labels.length)]!,
        kind: "stock",
      }),
    ),
  ];
  return { entries, sectorEtfs: ETFS };
}

/** A random walk with its own drift and volatility; now and then a flat series with no range at all. */
function walk(n: number, seed: number): Bar[] {
  const r = rng(seed);
  const flat = r() < 0.03;
  const drift = (r() - 0.5) * 0.004;
  const vol = 0.005 + r() * 0.03;
  let c = 20 + r() * 400;
  const out: Bar[] = [];
  for (let i = 0; i < n; i++) {
    const open = flat ? c : c * Math.exp(vol * 0.3 * (r() - 0.5));
    if (!flat) c = c * Math.exp(drift + vol * (r() + r() + r() - 1.5));
    const high = Math.max(open, c) * (1 + (flat ? 0 : vol * r()));
    const low = Math.min(open, c) * (1 - (flat ? 0 : vol * r()));
    out.push({ date: addDays("2025-01-01", i), open, high, low, close: c, volume: Math.max(1, Math.round(1e6 * (0.3 + r() * 2))) });
  }
  return out;
}

function inputOf(universe: Universe, n: number, seed: number, partial: boolean): ScoreInput {
  const series = new Map<string, NameBars>(universe.entries.map((e, i) => [e.sym, { bars: walk(n, seed * 7919 + i * 104729), partial }]));
  return {
    universe,
    series,
    asofDaily: addDays("2025-01-01", n - 1),
    crypto: {
      usClose: "2025-06-02T16:00:00-04:00",
      quotes: [
        { sym: "BTC-USD", atUsClose: 100, now: 101.5 },
        { sym: "ETH-USD", atUsClose: 100, now: 97 },
      ],
    },
  };
}

const scenario = fc.record({
  stocks: fc.integer({ min: 5, max: 60 }),
  bars: fc.integer({ min: 2, max: 320 }),
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  partial: fc.boolean(),
});

describe("percentile properties", () => {
  it("ranks land on 1..99 integers, whatever the values (NaN and infinities included)", () => {
    fc.assert(
      fc.property(fc.array(fc.double()), (xs) => {
        for (const p of percentileRanks(xs)) {
          expect(Number.isInteger(p)).toBe(true);
          expect(p).toBeGreaterThanOrEqual(1);
          expect(p).toBeLessThanOrEqual(99);
        }
      }),
    );
  });

  it("spread the scale: min <= 5 and max >= 95 for 50 or more distinct values", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 50, maxLength: 600 }), (xs) => {
        const p = percentileRanks(xs);
        expect(Math.min(...p)).toBeLessThanOrEqual(5);
        expect(Math.max(...p)).toBeGreaterThanOrEqual(95);
      }),
    );
  });

  it("keep order: a larger finite value never ranks lower; a permutation permutes the ranks", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 2, maxLength: 200 }), fc.integer(), (xs, seed) => {
        const p = percentileRanks(xs);
        for (let i = 0; i < xs.length; i++)
          for (let j = 0; j < xs.length; j++) if (xs[i]! < xs[j]!) expect(p[i]!).toBeLessThanOrEqual(p[j]!);
        const order = xs.map((_, i) => i);
        const r = rng(seed);
        for (let i = order.length - 1; i > 0; i--) {
          const k = Math.floor(r() * (i + 1));
          [order[i], order[k]] = [order[k]!, order[i]!];
        }
        const q = percentileRanks(order.map((i) => xs[i]!));
        order.forEach((i, k) => expect(q[k]).toBe(p[i]));
      }),
      { numRuns: 50 },
    );
  });
});

describe("board properties", () => {
  it("every score lies in 0..100 and every percentile on 1..99; books and signals satisfy the contract", () => {
    fc.assert(
      fc.property(scenario, ({ stocks, bars, seed, partial }) => {
        const board = scoreBoard(inputOf(miniUniverse(stocks, seed), bars, seed, partial));
        expect(board.names).toHaveLength(stocks + 25);
        for (const n of board.names) {
          NameRecord.parse(n);
          for (const s of [n.opp_score, n.entry_q, n.hold_q, n.growth_score, n.gap_risk]) {
            expect(s).toBeGreaterThanOrEqual(0);
            expect(s).toBeLessThanOrEqual(100);
          }
          expect(Number.isInteger(n.opp_pct) && n.opp_pct >= 1 && n.opp_pct <= 99).toBe(true);
        }
        for (const b of Object.values(board.books)) Book.parse(b);
        BoardSignals.parse(board.signals);
      }),
      { numRuns: 40 },
    );
  });

  it("is deterministic: the same input gives the same board", () => {
    fc.assert(
      fc.property(scenario, ({ stocks, bars, seed, partial }) => {
        const universe = miniUniverse(stocks, seed);
        const a = scoreBoard(inputOf(universe, bars, seed, partial));
        const b = scoreBoard(inputOf(universe, bars, seed, partial));
        expect(JSON.stringify(b)).toBe(JSON.stringify(a));
      }),
      { numRuns: 15 },
    );
  });

  it("does not depend on the universe's order: every name's read, every book and the signals are the same", () => {
    fc.assert(
      fc.property(scenario, fc.integer(), ({ stocks, bars, seed, partial }, shuffleSeed) => {
        const universe = miniUniverse(stocks, seed);
        const input = inputOf(universe, bars, seed, partial);
        const entries = [...universe.entries];
        const r = rng(shuffleSeed);
        for (let i = entries.length - 1; i > 0; i--) {
          const k = Math.floor(r() * (i + 1));
          [entries[i], entries[k]] = [entries[k]!, entries[i]!];
        }
        const a = scoreBoard(input);
        const b = scoreBoard({ ...input, universe: { ...universe, entries } });
        const bySym = (names: NameRecord[]) => new Map(names.map((n) => [n.sym, n]));
        expect(bySym(b.names)).toEqual(bySym(a.names));
        expect(b.books).toEqual(a.books);
        expect(b.signals).toEqual(a.signals);
      }),
      { numRuns: 30 },
    );
  });
});
