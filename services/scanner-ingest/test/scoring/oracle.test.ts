// An independent oracle for the scoring engine: every field of every name record, every book's
// breadth, verdict, ladder, cards and lanes, and the engine section's setups, recomputed from the
// raw bars with the rules of SCORING.md and docs/methodology.md (code in test/oracle/, built on
// trading-signals and weights.ts's constants only), on three boards of the seeded simulator.
// Tolerance and ties: see test/oracle/compare.ts. Each disagreement is listed with board, book,
// symbol, field, the oracle's value and the engine's.

import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ATR, EMA, getQuartile } from "trading-signals";
import { BOOK_ORDER } from "@board/proto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MarketSimulator } from "../../src/market/simulator.js";
import { loadUniverse } from "../../src/universe.js";
import { STATE_HISTORY_BARS, WINDOWS } from "../../src/scoring/weights.js";
import { computeOracle, type OracleBoard } from "../oracle/board.js";
import { BOARD_CASES, buildBoard, type BuiltBoard } from "../oracle/boards.js";
import { Collector, compareBooks, compareLanes, compareReadings, compareRecords, compareSetups, NEW_RECORD_FIELDS, READING_FIELDS, RECORD_FIELDS } from "../oracle/compare.js";
import { atrLine, emaLine, quantile } from "../oracle/indicators.js";

const universe = loadUniverse();
const sim = new MarketSimulator(universe.entries, 42);
const boards = new Map<string, { built: BuiltBoard; oracle: OracleBoard }>();
const collectors: Collector[] = [];
const timings: string[] = [];

beforeAll(async () => {
  for (const c of BOARD_CASES) {
    const t0 = performance.now();
    const built = await buildBoard(universe, sim, c);
    const t1 = performance.now();
    const oracle = computeOracle(universe, built);
    const t2 = performance.now();
    boards.set(c.label, { built, oracle });
    timings.push(`${c.label}: engine board ${(t1 - t0).toFixed(0)} ms, oracle ${(t2 - t1).toFixed(0)} ms; ${coverage(oracle)}`);
  }
}, 120_000);

afterAll(() => {
  const text = [...timings, "", ...collectors.map((c) => c.report(100_000))].join("\n");
  const file = join(tmpdir(), "scoring-oracle-report.txt");
  writeFileSync(file, text + "\n");
  const counts = collectors.map((c) => `${c.board}: ${c.list.length} disagreements, ${c.tieAccepts} percentile tie accepts, ${c.laneTieAccepts} lane tie accepts`);
  console.log(["scoring oracle:", ...timings, ...counts, `full report: ${file}`].join("\n"));
});

/** What the board exercises, so a clean comparison is seen not to be an empty one. */
function coverage(o: OracleBoard): string {
  const count = (f: (r: OracleBoard["records"][number]) => boolean) => o.records.filter(f).length;
  const books = BOOK_ORDER.map((b) => {
    const { regime, lanes } = o.books[b];
    return `${b} ${regime.verdict}${regime.pending ? ` (pending ${regime.pending})` : ""} lanes ${lanes.risk_adjusted.length}/${lanes.swing.length}`;
  });
  return (
    `records READY ${count((r) => r.state === "READY")}, SETUP ${count((r) => r.state === "SETUP")}, firing ${count((r) => r.light === "firing")}, ` +
    `breakout triggers ${count((r) => r.trigger?.type === "breakout")}, pullback triggers ${count((r) => r.trigger?.type === "pullback")}; ${books.join("; ")}`
  );
}

function board(label: string) {
  const b = boards.get(label);
  if (!b) throw new Error(`board ${label} was not built`);
  return b;
}

/** Fails with every disagreement of the collector, listed. */
function expectAgreement(c: Collector): void {
  collectors.push(c);
  if (c.list.length > 0) expect.fail(c.report());
}

describe("oracle library conventions (trading-signals against the engine's stated ones)", () => {
  it("EMA is seeded with the first close", () => {
    expect(emaLine([10, 20, 30], 3)).toEqual([10, 15, 22.5]);
    // The library's own warm-up flag does not change the values it answers.
    const ema = new EMA(3);
    expect([10, 20, 30].map((v) => ema.add(v))).toEqual([10, 15, 22.5]);
  });

  it("ATR is Wilder's: the mean of the first n true ranges (the first bar's is high - low), then (prev (n-1) + tr) / n", () => {
    const bars = [
      { date: "d1", open: 10, high: 12, low: 9, close: 11, volume: 1 },
      { date: "d2", open: 11, high: 11.5, low: 10, close: 10.5, volume: 1 },
      { date: "d3", open: 10.5, high: 14, low: 10.5, close: 13, volume: 1 },
      { date: "d4", open: 13, high: 13.2, low: 8, close: 9, volume: 1 },
    ];
    const tr = [3, 1.5, 3.5, 5.2];
    const line = atrLine(bars, 3);
    expect(line.slice(0, 2)).toEqual([undefined, undefined]);
    expect(line[2]).toBeCloseTo((tr[0]! + tr[1]! + tr[2]!) / 3, 12);
    expect(line[3]).toBeCloseTo((line[2]! * 2 + tr[3]!) / 3, 12);
    expect(new ATR(3).updates(bars, false)[3]).toBeCloseTo(line[3]!, 12);
  });

  it("the type-7 quantile agrees with trading-signals' getQuartile", () => {
    const xs = [5, 1, 4, 2, 8, 7, 3];
    expect(quantile(xs, 0.5)).toBe(getQuartile(xs, 0.5));
    expect(quantile([1, 2, 3, 4, 5], 0.95)).toBeCloseTo(4.8, 12);
  });

  it("the EMA seeding cannot reach a compared figure: first-close vs SMA-seeded EMA21 at the bars read", () => {
    // The earliest EMA21 the oracle reads: the reclaim check of the oldest state bar.
    const reach = STATE_HISTORY_BARS + WINDOWS.reclaimLookback + 1;
    let worst = 0;
    for (const { oracle } of boards.values()) {
      for (const s of oracle.ctx.series.values()) {
        const n = WINDOWS.ema21;
        const k = 2 / (n + 1);
        let ema = s.close.slice(0, n).reduce((a, b) => a + b, 0) / n;
        for (let t = n; t <= s.last; t++) {
          ema = s.close[t]! * k + ema * (1 - k);
          if (t >= s.last - reach) worst = Math.max(worst, Math.abs(ema - s.ema21[t]!) / Math.abs(ema));
        }
      }
    }
    console.log(`EMA21 seeding: largest relative difference at the bars read ${worst.toExponential(2)}`);
    expect(worst).toBeLessThan(1e-9);
  });
});

describe.each(BOARD_CASES.map((c) => c.label))("oracle: %s", (label) => {
  it("reads identical bars: the engine's prices are the last closes the oracle holds", () => {
    const { built, oracle } = board(label);
    expect(built.snapshot.board.names.map((n) => n.sym)).toEqual(universe.entries.map((e) => e.sym));
    for (const r of oracle.records) expect(r.s.bars).toBe(built.series.get(r.sym)!.bars);
  });

  it("oracle self-check: in every book its own opp_pct spans exactly 1..99", () => {
    const { oracle } = board(label);
    for (const b of BOOK_ORDER) {
      const pcts = [...oracle.books[b].readings.values()].map((r) => r.oppPct.value);
      expect([b, Math.min(...pcts), Math.max(...pcts)]).toEqual([b, 1, 99]);
    }
  });

  it(`name records: ${RECORD_FIELDS.join(", ")}`, () => {
    const { built, oracle } = board(label);
    const c = new Collector(`${label} / records`);
    compareRecords(c, oracle, built.snapshot, RECORD_FIELDS);
    expectAgreement(c);
  });

  it(`name records, per-book reading fields: ${NEW_RECORD_FIELDS.join(", ")}`, () => {
    const { built, oracle } = board(label);
    const c = new Collector(`${label} / new record fields`);
    compareRecords(c, oracle, built.snapshot, NEW_RECORD_FIELDS);
    expectAgreement(c);
  });

  it(`every book's reading of every member (qqq: all 101): ${READING_FIELDS.join(", ")}, rs_pct`, () => {
    const { built, oracle } = board(label);
    const c = new Collector(`${label} / book readings`);
    compareReadings(c, oracle, built.readings);
    expectAgreement(c);
  });

  it("books: members, breadth, verdict (confirmed and pending), ladder, index and sector cards", () => {
    const { built, oracle } = board(label);
    const c = new Collector(`${label} / books`);
    compareBooks(c, oracle, built.snapshot);
    expectAgreement(c);
  });

  it("books: every lane's entries in order, with windows, stops and targets", () => {
    const { built, oracle } = board(label);
    const c = new Collector(`${label} / lanes`);
    compareLanes(c, oracle, built.snapshot);
    expectAgreement(c);
  });

  it("engine setups: permission, refusal, entry window, stop, targets, conviction", () => {
    const { built, oracle } = board(label);
    const c = new Collector(`${label} / setups`);
    compareSetups(c, oracle, built.snapshot);
    expectAgreement(c);
  });
});
