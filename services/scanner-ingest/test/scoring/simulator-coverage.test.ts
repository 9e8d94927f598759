// Over the seeded simulator (seed 42), across many as-of dates from 2025 to 2026: every entry
// state, both lights, every regime verdict and both lanes occur somewhere (the counts are
// printed). And one full scoring pass over 2+ years of bars is timed.

import { addTradingDays, sessionOn } from "@board/market-calendar";
import { beforeAll, describe, expect, it } from "vitest";
import { addDays } from "../../src/market/days.js";
import type { Bar } from "../../src/market/provider.js";
import { MarketSimulator } from "../../src/market/simulator.js";
import { scoreBoard, type NameBars, type ScoredBoard } from "../../src/scoring/board.js";
import { HISTORY_BARS } from "../../src/scoring/weights.js";
import { cryptoQuotes } from "../../src/snapshot.js";
import { loadUniverse, type Universe } from "../../src/universe.js";

const FIRST = "2025-01-03";
const LAST = "2026-11-20";
/** Every 7th session: about 68 closing boards. */
const STEP = 7;

let universe: Universe;
let sim: MarketSimulator;
/** Every name's whole history through LAST, generated once. */
const all = new Map<string, Bar[]>();

beforeAll(() => {
  universe = loadUniverse();
  sim = new MarketSimulator(universe.entries, 42);
  sim.warm(LAST);
  for (const e of universe.entries) all.set(e.sym, sim.dailyBarsSync(e.sym, LAST, 100_000));
});

/** The closing board's bars of `day` (as collectBars would fetch them), sliced from the cached history. */
function closingSeries(day: string, count: number): Map<string, NameBars> {
  const out = new Map<string, NameBars>();
  for (const e of universe.entries) {
    const bars = all.get(e.sym)!;
    // At the US close the crypto day is still open: its last completed UTC day is the day before.
    const through = e.kind === "crypto" ? addDays(day, -1) : day;
    let end = bars.length;
    while (end > 0 && bars[end - 1]!.date > through) end--;
    out.set(e.sym, { bars: bars.slice(Math.max(0, end - count), end), partial: false });
  }
  return out;
}

async function closingBoard(day: string): Promise<ScoredBoard> {
  const at = sessionOn(day)!.close;
  const series = closingSeries(day, HISTORY_BARS);
  const crypto = await cryptoQuotes({ universe, provider: sim, at, intraday: false, asofDaily: day }, series);
  return scoreBoard({ universe, series, asofDaily: day, crypto });
}

type Counts = Record<string, Record<string, number>>;

describe("seed 42 across 2025-2026", () => {
  it("every entry state, both lights, every verdict and both lanes occur", async () => {
    const counts: Counts = {};
    const inc = (k: string, v: string) => ((counts[k] ??= {})[v] = (counts[k]![v] ?? 0) + 1);
    let dates = 0;
    for (let day = FIRST; day <= LAST; day = addTradingDays(day, STEP)) {
      const board = await closingBoard(day);
      dates++;
      for (const n of board.names) {
        inc("state", n.state);
        inc("light", n.light);
      }
      for (const [code, book] of Object.entries(board.books)) {
        inc(`verdict ${code}`, book.regime.verdict);
        inc("verdict (any book)", book.regime.verdict);
        if (book.regime.pending !== null) inc("pending", code);
        if (book.lanes.risk_adjusted.length > 0) inc("lane non-empty", "risk_adjusted");
        if (book.lanes.swing.length > 0) inc("lane non-empty", "swing");
      }
      inc("crypto_night", board.signals.crypto_night.read);
      inc("tradfi credit_ok", String(board.signals.tradfi_risk.credit_ok));
    }
    console.log(`coverage over ${dates} closing boards (seed 42, ${FIRST}..${LAST}, every ${STEP}th session):`);
    for (const [k, v] of Object.entries(counts)) console.log(`  ${k}: ${JSON.stringify(v)}`);

    expect(dates).toBeGreaterThanOrEqual(60);
    expect(Object.keys(counts.state!).sort()).toEqual(["CHASE", "FALLING", "READY", "SETUP", "WAIT"]);
    expect(Object.keys(counts.light!).sort()).toEqual(["cold", "firing"]);
    expect(Object.keys(counts["verdict (any book)"]!).sort()).toEqual(["INDEX_ONLY", "NAMES_ON", "RISK_OFF", "SECTORS_ON", "SELECTIVE"]);
    expect(Object.keys(counts["verdict crypto"]!).sort()).toEqual(["INDEX_ONLY", "NAMES_ON", "RISK_OFF"]);
    expect(Object.keys(counts["lane non-empty"]!).sort()).toEqual(["risk_adjusted", "swing"]);
  }, 120_000);

  it("one full scoring pass over 2+ years of bars (bars already generated) takes well under a second", async () => {
    const series = new Map<string, NameBars>([...all].map(([sym, bars]) => [sym, { bars, partial: false }]));
    const at = sessionOn(LAST)!.close;
    const crypto = await cryptoQuotes({ universe, provider: sim, at, intraday: false, asofDaily: LAST }, series);
    const input = { universe, series, asofDaily: LAST, crypto };
    scoreBoard(input); // warm the JIT
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      scoreBoard(input);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const spy = series.get("SPY")!.bars;
    console.log(
      `scoring pass: ${universe.entries.length} names, ${spy.length} equity bars (${spy[0]!.date}..${LAST}), ` +
        `${series.get("BTC-USD")!.bars.length} crypto bars: best ${times[0]!.toFixed(0)} ms, median ${times[2]!.toFixed(0)} ms`,
    );
    expect(spy.length).toBeGreaterThan(504);
    expect(times[0]!).toBeLessThan(1_000);
  }, 60_000);
});
