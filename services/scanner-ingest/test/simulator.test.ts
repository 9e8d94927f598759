import { isTradingDay } from "@board/market-calendar";
import { beforeAll, describe, expect, it } from "vitest";
import { addDays } from "../src/market/days.js";
import type { Bar } from "../src/market/provider.js";
import { levelsOf, MarketSimulator } from "../src/market/simulator.js";
import { loadUniverse, type Universe } from "../src/universe.js";

const ASOF = "2026-11-20"; // a Friday
const EARLY = "2025-03-14";

let universe: Universe;
beforeAll(() => {
  universe = loadUniverse();
});

/** Every bar that breaks a sanity rule, described (an expect per bar would take seconds). */
function implausible(sym: string, bars: readonly Bar[]): string[] {
  const bad: string[] = [];
  for (const b of bars) {
    const finite = [b.open, b.high, b.low, b.close, b.volume].every(Number.isFinite);
    if (
      !finite ||
      !(b.low > 0) ||
      b.high < Math.max(b.open, b.close) ||
      b.low > Math.min(b.open, b.close) ||
      !(b.volume > 0) ||
      !Number.isInteger(b.volume)
    ) {
      bad.push(`${sym} ${JSON.stringify(b)}`);
    }
  }
  return bad;
}

describe("MarketSimulator", () => {
  it("generates the whole universe quickly (timing printed)", () => {
    const sim = new MarketSimulator(universe.entries);
    const t0 = performance.now();
    sim.warm(ASOF);
    const ms = performance.now() - t0;
    const bars = universe.entries.reduce((n, e) => n + sim.dailyBarsSync(e.sym, ASOF, 100_000).length, 0);
    console.log(`simulator: ${universe.entries.length} names, ${bars} bars generated in ${ms.toFixed(0)} ms`);
    expect(bars).toBeGreaterThan(565 * 560);
    expect(ms).toBeLessThan(5_000); // the target is well under 1 s; the bound only catches a blow-up
  });

  it("gives the same bars for the same seed, whatever was asked first", () => {
    const a = new MarketSimulator(universe.entries, 42);
    const b = new MarketSimulator(universe.entries, 42);
    // a: late dates first, every name; b: an early date for a few names, then the late ones.
    const lateA = universe.entries.map((e) => a.dailyBarsSync(e.sym, ASOF, 300));
    const earlyA = ["AAPL", "XLK", "BTC-USD", "IBIT", "SPY"].map((s) => a.dailyBarsSync(s, EARLY, 40));
    const earlyB = ["AAPL", "XLK", "BTC-USD", "IBIT", "SPY"].map((s) => b.dailyBarsSync(s, EARLY, 40));
    b.dailyBarsSync("NVDA", "2025-09-02", 5); // extends the shared paths part of the way
    const lateB = [...universe.entries].reverse().map((e) => b.dailyBarsSync(e.sym, ASOF, 300)).reverse();
    expect(earlyB).toEqual(earlyA);
    expect(lateB).toEqual(lateA);
    expect(new MarketSimulator(universe.entries).dailyBarsSync("MSFT", ASOF, 10)).toEqual(a.dailyBarsSync("MSFT", ASOF, 10));
  });

  it("gives different bars for a different seed", () => {
    const a = new MarketSimulator(universe.entries, 42).dailyBarsSync("AAPL", ASOF, 50);
    const b = new MarketSimulator(universe.entries, 43).dailyBarsSync("AAPL", ASOF, 50);
    expect(b.map((x) => x.date)).toEqual(a.map((x) => x.date));
    expect(b.map((x) => x.close)).not.toEqual(a.map((x) => x.close));
  });

  it("produces plausible bars for every name", () => {
    const sim = new MarketSimulator(universe.entries);
    const bad: string[] = [];
    const firsts = new Map<string, number>();
    const lasts = new Map<string, number>();
    for (const e of universe.entries) {
      const bars = sim.dailyBarsSync(e.sym, ASOF, 100_000);
      bad.push(...implausible(e.sym, bars));
      firsts.set(e.sym, bars[0]!.close);
      lasts.set(e.sym, bars.at(-1)!.close);
    }
    expect(bad.slice(0, 5)).toEqual([]);
    // The first close is one day's move from the start price, which lies in the name's range.
    const out = universe.entries.filter((e) => {
      const [lo, hi] = levelsOf(e).price;
      const first = firsts.get(e.sym)!;
      const last = lasts.get(e.sym)!;
      return !(first >= lo * 0.85 && first <= hi * 1.15 && last > lo / 10 && last < hi * 10);
    });
    expect(out.map((e) => e.sym)).toEqual([]);
    expect(firsts.get("BTC-USD")).toBeGreaterThan(50_000);
    expect(firsts.get("ETH-USD")).toBeGreaterThan(1_700);
  });

  it("covers more than 2 years + 60 days: equities on NYSE sessions, crypto every day", () => {
    const sim = new MarketSimulator(universe.entries);
    const spy = sim.dailyBarsSync("SPY", ASOF, 100_000);
    expect(spy.length).toBeGreaterThanOrEqual(2 * 252 + 42);
    expect(spy[0]!.date <= addDays(ASOF, -(2 * 365 + 60))).toBe(true);
    expect(spy.at(-1)!.date).toBe(ASOF);
    expect(spy.every((b) => isTradingDay(b.date))).toBe(true);
    for (let d = spy[0]!.date, k = 0; d <= ASOF; d = addDays(d, 1)) {
      if (isTradingDay(d)) expect(spy[k++]!.date).toBe(d);
    }
    expect(spy.some((b) => b.date === "2025-12-25")).toBe(false);
    const btc = sim.dailyBarsSync("BTC-USD", ASOF, 100_000);
    for (let k = 1; k < btc.length; k++) expect(btc[k]!.date).toBe(addDays(btc[k - 1]!.date, 1));
    expect(btc.some((b) => b.date === "2025-12-25")).toBe(true);
    expect(btc.at(-1)!.date).toBe(ASOF);
  });

  it("answers through a weekend or holiday with the last session, and count limits the tail", () => {
    const sim = new MarketSimulator(universe.entries);
    expect(sim.dailyBarsSync("SPY", "2026-11-22", 3).map((b) => b.date)).toEqual(["2026-11-18", "2026-11-19", "2026-11-20"]);
    expect(sim.dailyBarsSync("SPY", "2025-12-25", 1)[0]!.date).toBe("2025-12-24");
    expect(sim.dailyBarsSync("SPY", "2023-06-01", 10)).toEqual([]);
    expect(() => sim.dailyBarsSync("NOPE", ASOF, 1)).toThrow(/unknown symbol/);
  });

  it("makes trends and drawdowns happen in the market", () => {
    const sim = new MarketSimulator(universe.entries);
    const closes = sim.dailyBarsSync("SPY", ASOF, 100_000).map((b) => b.close);
    let peak = 0;
    let worst = 0;
    for (const c of closes) {
      peak = Math.max(peak, c);
      worst = Math.min(worst, c / peak - 1);
    }
    expect(worst).toBeLessThan(-0.05);
    const daily = closes.slice(1).map((c, i) => Math.log(c / closes[i]!));
    const sd = Math.sqrt(daily.reduce((a, r) => a + r * r, 0) / daily.length);
    expect(sd).toBeGreaterThan(0.004);
    expect(sd).toBeLessThan(0.03);
  });

  it("serves a partial bar in market hours that ends at the day's bar", async () => {
    const sim = new MarketSimulator(universe.entries);
    const full = sim.dailyBarsSync("AAPL", ASOF, 1)[0]!;
    const noon = (await sim.intradayBar("AAPL", new Date("2026-11-20T17:00:00Z")))!; // 12:00 New York
    expect(noon.date).toBe(ASOF);
    expect(noon.open).toBe(full.open);
    expect(noon.high).toBeLessThanOrEqual(full.high);
    expect(noon.low).toBeGreaterThanOrEqual(full.low);
    expect(noon.high).toBeGreaterThanOrEqual(Math.max(noon.open, noon.close));
    expect(noon.low).toBeLessThanOrEqual(Math.min(noon.open, noon.close));
    expect(noon.volume).toBeLessThan(full.volume);
    expect(sim.intradayBarSync("AAPL", new Date("2026-11-20T17:00:00Z"))).toEqual(noon);
    const late = sim.intradayBarSync("AAPL", new Date("2026-11-20T20:59:59Z"))!;
    expect(Math.abs(Math.log(late.close / full.close))).toBeLessThan(0.01);
    expect(await sim.intradayBar("AAPL", new Date("2026-11-21T17:00:00Z"))).toBeNull(); // Saturday
    const btc = sim.intradayBarSync("BTC-USD", new Date("2026-11-21T12:00:00Z"))!;
    expect(btc.date).toBe("2026-11-21");
    expect(btc.open).toBe(sim.dailyBarsSync("BTC-USD", "2026-11-21", 1)[0]!.open);
  });

  it("implements the provider interface with promises", async () => {
    const sim = new MarketSimulator(universe.entries, 7);
    expect(sim.info).toMatchObject({ name: "simulator", simulated: true });
    await expect(sim.dailyBars("SPY", ASOF, 5)).resolves.toEqual(sim.dailyBarsSync("SPY", ASOF, 5));
  });
});
