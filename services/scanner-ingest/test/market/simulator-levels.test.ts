// The simulator's levels (issue 15): start price, dollar volume and daily volatility drawn per kind
// of name from plausible ranges, seeded. The ranges below are the issue's, written out here rather
// than read from the simulator, so a change to its tables has to agree with them. Medians are
// checked on the closing board of 2026-11-24 (seed 42), the figures the board publishes.

import type { NameRecord, Snapshot } from "@board/proto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bar } from "../../src/market/provider.js";
import { MarketSimulator, simKindOf, type SimKind } from "../../src/market/simulator.js";
import { slotAt } from "../../src/schedule.js";
import { buildSnapshot } from "../../src/snapshot.js";
import { loadUniverse, type Universe, type UniverseEntry } from "../../src/universe.js";

const BOARD = slotAt(new Date("2026-11-24T21:30:00Z")); // the closing board of Tuesday 2026-11-24
const THROUGH = "2026-11-24";

type Range = readonly [number, number];
/** Per kind: price, 20-day dollar volume and daily volatility (median over names) on the board. */
const KIND_RANGES: Partial<Record<SimKind, { price: Range; adv: Range; vol: Range }>> = {
  mega: { price: [100, 600], adv: [2e9, 30e9], vol: [0.012, 0.02] },
  large: { price: [30, 400], adv: [150e6, 3e9], vol: [0.015, 0.025] },
  large_ndx: { price: [30, 400], adv: [150e6, 3e9], vol: [0.015, 0.035] },
  sector_etf: { price: [40, 250], adv: [300e6, 3e9], vol: [0.009, 0.015] },
  other_etf: { price: [20, 250], adv: [20e6, 3e9], vol: [0.002, 0.015] },
  index_etf: { price: [150, 700], adv: [800e6, 40e9], vol: [0.008, 0.012] },
  crypto: { price: [2_000, 110_000], adv: [10e9, 40e9], vol: [0.025, 0.04] },
};
/** Per symbol, where the issue names levels: the start (first 20 bars) lies in them. */
const SYMBOL_RANGES: Record<string, { price: Range; adv: Range }> = {
  SPY: { price: [500, 700], adv: [25e9, 40e9] },
  QQQ: { price: [400, 600], adv: [15e9, 25e9] },
  "BTC-USD": { price: [60_000, 110_000], adv: [20e9, 40e9] },
  "ETH-USD": { price: [2_000, 5_000], adv: [10e9, 20e9] },
};

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const meanDollarVolume = (bars: readonly Bar[]) => bars.reduce((a, b) => a + b.close * b.volume, 0) / bars.length;
/** Root mean square of the close-to-close log returns. */
const dailyVol = (bars: readonly Bar[]) => {
  let sum = 0;
  for (let k = 1; k < bars.length; k++) sum += Math.log(bars[k]!.close / bars[k - 1]!.close) ** 2;
  return Math.sqrt(sum / (bars.length - 1));
};
const inRange = (x: number, [lo, hi]: Range) => x >= lo && x <= hi;

let universe: Universe;
let sim: MarketSimulator;
let snap: Snapshot;
let records: Map<string, NameRecord>;
let kinds: Map<string, SimKind>;

beforeAll(async () => {
  universe = loadUniverse();
  sim = new MarketSimulator(universe.entries, 42);
  snap = await buildSnapshot({ universe, provider: sim, ...BOARD });
  records = new Map(snap.board.names.map((n) => [n.sym, n]));
  kinds = new Map(universe.entries.map((e) => [e.sym, simKindOf(e)]));
});

describe("simulator levels (seed 42, closing board of 2026-11-24)", () => {
  it("labels kinds from index membership: mega caps, large caps, ETFs, crypto", () => {
    expect(snap.board.provider.simulated).toBe(true);
    const count = (k: SimKind) => [...kinds.values()].filter((x) => x === k).length;
    console.log(`simulator kinds: ${JSON.stringify(Object.fromEntries([...new Set(kinds.values())].map((k) => [k, count(k)])))}`);
    for (const sym of ["AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "TSLA", "AVGO", "BRK.B"]) expect(kinds.get(sym)).toBe("mega");
    expect(kinds.get("MMM")).toBe("large");
    expect(kinds.get("ASML")).toBe("large_ndx");
    expect(kinds.get("XLK")).toBe("sector_etf");
    expect(kinds.get("TLT")).toBe("other_etf");
    expect(kinds.get("SPY")).toBe("index_etf");
    expect(kinds.get("BTC-USD")).toBe("crypto");
    expect(count("index_etf")).toBe(5);
    expect(count("mega")).toBeGreaterThan(80);
    expect(count("large")).toBeGreaterThan(350);
  });

  it("puts each kind's median price, 20-day dollar volume and daily volatility in its range", () => {
    const rows: string[] = [];
    const bad: string[] = [];
    for (const [kind, r] of Object.entries(KIND_RANGES)) {
      const syms = [...kinds].filter(([, k]) => k === kind).map(([s]) => s);
      expect(syms.length, kind).toBeGreaterThan(0);
      const price = median(syms.map((s) => records.get(s)!.price));
      const adv = median(syms.map((s) => records.get(s)!.adv20_usd));
      const vol = median(syms.map((s) => dailyVol(sim.dailyBarsSync(s, THROUGH, 100_000))));
      rows.push(`${kind} (${syms.length}): price ${price.toFixed(2)}, adv20 ${(adv / 1e6).toFixed(0)}M, vol ${(vol * 100).toFixed(2)}%`);
      if (!inRange(price, r.price)) bad.push(`${kind} median price ${price}`);
      if (!inRange(adv, r.adv)) bad.push(`${kind} median adv20_usd ${adv}`);
      if (!inRange(vol, r.vol)) bad.push(`${kind} median daily volatility ${vol}`);
    }
    console.log(`simulator medians on ${THROUGH}:\n  ${rows.join("\n  ")}`);
    expect(bad).toEqual([]);
    // Nasdaq-only large caps move more than the S&P 500's.
    const volOf = (k: SimKind) => median([...kinds].filter(([, x]) => x === k).map(([s]) => dailyVol(sim.dailyBarsSync(s, THROUGH, 100_000))));
    expect(volOf("large_ndx")).toBeGreaterThan(volOf("large"));
  });

  it("starts the named index ETFs and crypto assets at their levels, and keeps them near on the board", () => {
    for (const [sym, r] of Object.entries(SYMBOL_RANGES)) {
      const first = sim.dailyBarsSync(sym, "2024-03-01", 100_000).slice(0, 20);
      // The start price is in range; the first 20 bars are a few weeks' moves away from it.
      expect(first[0]!.open, sym).toBeGreaterThanOrEqual(r.price[0] * 0.95);
      expect(first[0]!.open, sym).toBeLessThanOrEqual(r.price[1] * 1.05);
      expect(meanDollarVolume(first), sym).toBeGreaterThanOrEqual(r.adv[0] * 0.8);
      expect(meanDollarVolume(first), sym).toBeLessThanOrEqual(r.adv[1] * 1.25);
      // Three years on, the board has wandered with the market, not away from it.
      const n = records.get(sym)!;
      expect(n.price, sym).toBeGreaterThan(r.price[0] / 1.6);
      expect(n.price, sym).toBeLessThan(r.price[1] * 1.6);
      expect(n.adv20_usd, sym).toBeGreaterThan(r.adv[0] / 1.6);
      expect(n.adv20_usd, sym).toBeLessThan(r.adv[1] * 1.6);
      expect(n.liquidity, sym).toBe("A");
    }
  });

  it("trades AAPL above $100 with more than $1B a day: liquidity tier A", () => {
    const aapl = records.get("AAPL")!;
    expect(aapl.price).toBeGreaterThanOrEqual(100);
    expect(aapl.adv20_usd).toBeGreaterThanOrEqual(1e9);
    expect(aapl.liquidity).toBe("A");
    // Every mega cap is tier A; no S&P 500 or Nasdaq-100 stock falls below tier B.
    const stocks = snap.board.names.filter((n) => ["mega", "large", "large_ndx"].includes(kinds.get(n.sym)!));
    expect(stocks.filter((n) => kinds.get(n.sym) === "mega" && n.liquidity !== "A").map((n) => n.sym)).toEqual([]);
    expect(stocks.filter((n) => n.liquidity === "C" || n.liquidity === "D").map((n) => n.sym)).toEqual([]);
  });

  it("leads every stock sector's top volume with a mega cap where it has one", () => {
    const leaders: string[] = [];
    const bad: string[] = [];
    for (const [label, top] of Object.entries(snap.signals!.top_volume)) {
      const members = universe.entries.filter((e) => e.sector === label);
      // Where the sector has no mega cap (precious metals: one miner among metal funds), an S&P 500
      // large cap or one of the sector's funds leads, never a Nasdaq-only or mid cap.
      const best = members.some((e) => kinds.get(e.sym) === "mega") ? ["mega"] : members.some((e) => e.kind === "stock") ? ["large", "sector_etf", "other_etf"] : null;
      if (best === null) continue;
      leaders.push(`${label}: ${top[0]} (${kinds.get(top[0]!)})`);
      if (!best.includes(kinds.get(top[0]!)!)) bad.push(`${label}: ${top[0]} is ${kinds.get(top[0]!)}, not ${best.join("/")}`);
    }
    console.log(`sector top-volume leaders: ${leaders.join("; ")}`);
    expect(leaders.length).toBeGreaterThanOrEqual(15);
    expect(bad).toEqual([]);
  });

  it("draws mid caps (stocks in neither index) from their own range", () => {
    const mids: UniverseEntry[] = Array.from({ length: 101 }, (_, i) => ({
      sym: `MID${i}`,
      name: `Mid cap ${i}`,
      books: ["macro"],
      sector: "Industrials",
      kind: "stock",
    }));
    expect(mids.every((e) => simKindOf(e) === "mid")).toBe(true);
    const s = new MarketSimulator(mids, 42);
    const starts = mids.map((e) => s.dailyBarsSync(e.sym, "2024-03-01", 100_000).slice(0, 20));
    expect(median(starts.map((b) => b[0]!.open))).toBeGreaterThan(10);
    expect(median(starts.map((b) => b[0]!.open))).toBeLessThan(150);
    expect(median(starts.map(meanDollarVolume))).toBeGreaterThan(20e6);
    expect(median(starts.map(meanDollarVolume))).toBeLessThan(500e6);
    expect(Math.min(...starts.map((b) => b[0]!.open))).toBeGreaterThan(10 * 0.9);
    expect(Math.max(...starts.map((b) => b[0]!.open))).toBeLessThan(150 * 1.1);
    const vol = median(mids.map((e) => dailyVol(s.dailyBarsSync(e.sym, THROUGH, 100_000))));
    expect(vol).toBeGreaterThan(0.02);
    expect(vol).toBeLessThan(0.035);
  });

  it("is seeded: the same seed gives the same levels, another seed other levels from the same ranges", () => {
    const again = new MarketSimulator(universe.entries, 42);
    const other = new MarketSimulator(universe.entries, 43);
    const start = (s: MarketSimulator, sym: string) => s.dailyBarsSync(sym, "2024-03-01", 100_000).slice(0, 20);
    let moved = 0;
    for (const e of universe.entries) {
      expect(start(again, e.sym)).toEqual(start(sim, e.sym));
      if (start(other, e.sym)[0]!.open !== start(sim, e.sym)[0]!.open) moved++;
    }
    expect(moved).toBe(universe.entries.length);
    // Seed 43's levels still sit in the kinds' ranges (medians at the start).
    for (const kind of ["mega", "large", "sector_etf"] as const) {
      const syms = [...kinds].filter(([, k]) => k === kind).map(([s]) => s);
      const r = KIND_RANGES[kind]!;
      expect(inRange(median(syms.map((s) => start(other, s)[0]!.open)), r.price), kind).toBe(true);
      expect(inRange(median(syms.map((s) => meanDollarVolume(start(other, s)))), r.adv), kind).toBe(true);
    }
  });
});
