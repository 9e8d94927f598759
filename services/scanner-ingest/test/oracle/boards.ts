// The boards the oracle checks, built by the scanner's own buildSnapshot on the seeded
// simulator (seed 42). The provider is wrapped in a recorder, and the oracle's bars are then
// assembled by the scanner's collectBars from a replay of exactly those answers (a call the engine
// did not make throws), so oracle and engine read identical input.

import type { BookCode, Snapshot } from "@board/proto";
import type { Bar, MarketDataProvider } from "../../src/market/provider.js";
import type { MarketSimulator } from "../../src/market/simulator.js";
import { slotAt } from "../../src/schedule.js";
import { scoreBoard, type BookReading } from "../../src/scoring/board.js";
import { buildSnapshot, collectBars, cryptoQuotes, type SnapshotOptions } from "../../src/snapshot.js";
import type { Universe } from "../../src/universe.js";

export type BoardCase = { label: string; at: Date; intraday: boolean; asofDaily: string };

/** 2026-11-24 is a Tuesday; 2026-11-26 is Thanksgiving (closed); 2026-11-27 closes early at 13:00 New York. */
export const BOARD_CASES: readonly BoardCase[] = [
  { label: "closing board 2026-11-24 16:30 NY", ...slotAt(new Date("2026-11-24T21:30:00Z")) },
  { label: "intraday board 2026-11-24 11:00 NY", ...slotAt(new Date("2026-11-24T16:00:00Z")) },
  // After the early close of the day after Thanksgiving: equities' previous bar is 2026-11-25,
  // while the crypto assets' last bar is the holiday itself (the last closed UTC day).
  { label: "holiday board 2026-11-27 14:30 NY (after Thanksgiving)", ...slotAt(new Date("2026-11-27T19:30:00Z")) },
  // Beyond the three asked for: the boards above confirm only NAMES_ON and SECTORS_ON; this close
  // has SELECTIVE in spx, qqq and macro (the top-5-by-RS ladder, leaders in top sectors) and
  // RISK_OFF in crypto.
  { label: "SELECTIVE board 2026-08-20 16:30 NY", ...slotAt(new Date("2026-08-20T20:30:00Z")) },
];

type NameBars = { bars: readonly Bar[]; partial: boolean };

export type BuiltBoard = {
  case: BoardCase;
  snapshot: Snapshot;
  /** Every name's bars as the engine read them. */
  series: Map<string, NameBars>;
  /** Each book's reading of every one of its members (qqq: all 101), what its lanes and cards rank. */
  readings: Record<BookCode, BookReading[]>;
};

const key = (parts: readonly unknown[]) => JSON.stringify(parts);

/** Passes calls through and remembers each answer (a deep copy, so later changes cannot leak in). */
class RecordingProvider implements MarketDataProvider {
  readonly answers = new Map<string, Bar[] | Bar | null>();
  constructor(private readonly inner: MarketDataProvider) {}
  get info() {
    return this.inner.info;
  }
  get intraday() {
    return this.inner.intraday;
  }
  async dailyBars(sym: string, through: string, count: number): Promise<Bar[]> {
    const bars = await this.inner.dailyBars(sym, through, count);
    this.answers.set(key(["daily", sym, through, count]), structuredClone(bars));
    return bars;
  }
  async intradayBar(sym: string, at: Date): Promise<Bar | null> {
    const bar = await this.inner.intradayBar(sym, at);
    this.answers.set(key(["intraday", sym, at.toISOString()]), structuredClone(bar));
    return bar;
  }
}

/** Answers only what the recorder saw. */
class ReplayProvider implements MarketDataProvider {
  readonly intraday: boolean;
  readonly info: MarketDataProvider["info"];
  constructor(private readonly rec: RecordingProvider) {
    this.intraday = rec.intraday;
    this.info = rec.info;
  }
  #answer(k: string) {
    if (!this.rec.answers.has(k)) throw new Error(`oracle replay: the engine never asked ${k}`);
    return structuredClone(this.rec.answers.get(k)!);
  }
  async dailyBars(sym: string, through: string, count: number): Promise<Bar[]> {
    return this.#answer(key(["daily", sym, through, count])) as Bar[];
  }
  async intradayBar(sym: string, at: Date): Promise<Bar | null> {
    return this.#answer(key(["intraday", sym, at.toISOString()])) as Bar | null;
  }
}

export async function buildBoard(universe: Universe, sim: MarketSimulator, c: BoardCase): Promise<BuiltBoard> {
  const rec = new RecordingProvider(sim);
  const o: SnapshotOptions = { universe, provider: rec, at: c.at, intraday: c.intraday, asofDaily: c.asofDaily };
  const snapshot = await buildSnapshot(o);
  const replay = { ...o, provider: new ReplayProvider(rec) };
  const series = await collectBars(replay);
  // Every book's own reading of all its members (not published as such): scored again from the same answers.
  const { readings } = scoreBoard({ universe, series, asofDaily: c.asofDaily, crypto: await cryptoQuotes(replay, series) });
  return { case: c, snapshot, series, readings };
}
