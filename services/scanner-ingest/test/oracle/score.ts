// Each book's reading of its members (docs/methodology.md: ranks, books, the light): every percentile ranked among the
// book's members, the trend template, the entry state on each of the last 64 bars (plus one), the
// trigger, the light, days_in_state, entry quality, opportunity, hold strength, leadership,
// growth and gap risk. Written from SCORING.md and docs/methodology.md.
//
// Readings taken where the documents leave room:
// - A percentile used in a formula is scaled by /99, as weights.ts's OPP_WEIGHTS doc writes it
//   (rs_pct/99, pct(C/H252)/99, ...); "1 - pct(ATR10/ATR50)" is read as 1 - pct/99 and
//   "pct(1 - V10/V50)" as pct/99.
// - opp_pct ranks the published opp_score (rounded to 0.1, as a buyer sees it), so two names
//   showing the same score share a rank; every other formula uses unrounded inputs.
// - hold_label compares hold_q to its thresholds exactly (integer arithmetic: the points are whole
//   numbers plus 15 rs_pct / 99).
// - is_leader's relative strength: the ratio name close / index close over the dates both have; the
//   last bar's ratio must exceed the mean of the last 50 such ratios (the last one included).

import type { BookCode, EntryState, HoldLabel, Light, SectorLabel, Trigger } from "@board/proto";
import type { UniverseEntry } from "../../src/universe.js";
import { HOLD, HOLD_LABELS, LEADER, OPP_WEIGHTS, STATE_HISTORY_BARS, TREND_TEMPLATE, WINDOWS } from "../../src/scoring/weights.js";
import { at, mean } from "./indicators.js";
import { percentileRanks, type Pct } from "./rank.js";
import type { NameSeries } from "./series.js";

/**
 * The scale that turns a percentile (1..99) into the fraction entry_q averages: SCORING.md writes
 * "1 - pct(ATR10/ATR50)" and "pct(1 - V10/V50)" without one; the parameter table (weights.ts
 * OPP_WEIGHTS) scales the same unscaled pct() of the opportunity formula by /99, so /99 here too.
 */
export const ENTRY_PCT_SCALE = 99;

/** The index of each book (SCORING.md "Regime verdict per book"). */
export const BOOK_INDEX: Record<BookCode, string> = { spx: "SPY", qqq: "QQQ", macro: "SPY", crypto: "BTC-USD" };

/** Everything a book's reading needs besides its members. */
export type Context = {
  series: ReadonlyMap<string, NameSeries>;
  sectorEtfs: Readonly<Record<SectorLabel, string>>;
};

export function seriesOf(ctx: Context, sym: string): NameSeries {
  const s = ctx.series.get(sym);
  if (!s) throw new Error(`oracle: no bars for ${sym}`);
  return s;
}

export type TriggerRead = { type: Trigger; t: number; date: string };

export type Reading = {
  sym: string;
  book: BookCode;
  s: NameSeries;
  rsPct: Pct;
  tt: number;
  /** States of bars last-64 .. last (index 0 is the predecessor bar of the window). */
  states: EntryState[];
  state: EntryState;
  prevState: EntryState;
  trigger: TriggerRead | null;
  light: Light;
  daysInState: number;
  nearHighPct: Pct;
  tightPct: Pct;
  dryPct: Pct;
  sectorRelPct: Pct;
  growth: Pct;
  gapRisk: Pct;
  entryQ: number;
  oppScore: number;
  oppPct: Pct;
  holdQ: number;
  holdLabel: HoldLabel;
  isLeader: boolean;
  /** How many of this reading's percentiles a near-tie widened. */
  tiedPcts: number;
};

/** The reference of pct(r63 - r63 ref) (methodology: ranks): the sector ETF, else the home book's index. */
export function sectorReference(e: UniverseEntry, ctx: Context): string {
  if (e.sector === "Index" || e.kind === "crypto") return BOOK_INDEX[at(e.books, 0)];
  const etf = ctx.sectorEtfs[e.sector];
  return etf === e.sym ? BOOK_INDEX[at(e.books, 0)] : etf;
}

/** The sector ETF of a name for "above its 50-day average" ("Index" names: itself; methodology: books). */
export function sectorEtfOf(e: UniverseEntry, ctx: Context): string {
  return e.sector === "Index" ? e.sym : ctx.sectorEtfs[e.sector];
}

/** hold_label by exact comparison: 99 points + 15 rs_pct >= 99 min. */
export function holdLabelOf(points: number, rsPct: number): HoldLabel {
  for (const { min, label } of HOLD_LABELS) if (99 * points + HOLD.rs * rsPct >= 99 * min) return label;
  return "EXIT";
}

/** (name close / index close) on the last shared bar above its mean over the last 50 shared bars. */
export function relativeAboveMean(s: NameSeries, index: NameSeries): boolean {
  const ratios: number[] = [];
  for (let t = 0; t < s.n; t++) {
    const j = index.indexOf(at(s.dates, t));
    if (j !== undefined) ratios.push(s.c(t) / index.c(j));
  }
  if (index.indexOf(at(s.dates, s.last)) === undefined) throw new Error(`oracle: ${s.sym}'s last bar is not a bar of ${index.sym}`);
  const window = ratios.slice(-WINDOWS.leaderRelative);
  return at(ratios, ratios.length - 1) > mean(window);
}

/** A score as published: clamped to 0..100 and rounded to 0.1. */
export const published = (x: number) => Math.round(Math.min(100, Math.max(0, x)) * 10) / 10;

/** The current trigger (methodology: the light) from the states of bars last-H .. last (states[0] is bar last-H). */
export function currentTrigger(s: NameSeries, states: readonly EntryState[]): TriggerRead | null {
  const H = STATE_HISTORY_BARS;
  const base = s.last - H; // bar of states[0]
  const st = (t: number) => at(states, t - base, `${s.sym} states`);
  const isTrigger = (t: number) => st(t) === "READY" && (st(t - 1) !== "READY" || s.breakout(t));
  let end: number;
  if (st(s.last) === "READY") end = s.last;
  else if (st(s.last - 1) === "READY") end = s.last - 1;
  else return null;
  for (let t = end; t > base && st(t) === "READY"; t--) {
    if (isTrigger(t)) return { type: s.breakout(t) ? "breakout" : "pullback", t, date: at(s.dates, t) };
  }
  return null;
}

/** Every member's reading in one book. */
export function readBook(book: BookCode, members: readonly NameSeries[], ctx: Context): Map<string, Reading> {
  const H = STATE_HISTORY_BARS;
  // rs_pct on each k = 0..H bars back, ranked among the members on that same k (methodology: the light).
  const rsPctAt: Pct[][] = [];
  for (let k = 0; k <= H; k++) rsPctAt.push(percentileRanks(members.map((m) => m.rs(m.last - k))));

  const pctOver = (f: (m: NameSeries) => number) => percentileRanks(members.map(f));
  const nearHigh = pctOver((m) => m.nearHigh);
  const tight = pctOver((m) => m.atrRatio);
  const dry = pctOver((m) => m.volumeDryUp);
  const sectorRel = pctOver((m) => m.ret(WINDOWS.r63, m.last) - refR63(m));
  const growth = pctOver((m) => m.growthRaw);
  // Crypto gap risk is 0 and not ranked (methodology: ranks): only the others enter the ranking.
  const gapMembers = members.filter((m) => m.entry.kind !== "crypto");
  const gapPct = percentileRanks(gapMembers.map((m) => m.gapRaw));
  const gapOf = new Map(gapMembers.map((m, i) => [m.sym, at(gapPct, i)]));

  function refR63(m: NameSeries): number {
    const ref = seriesOf(ctx, sectorReference(m.entry, ctx));
    return ref.ret(WINDOWS.r63, ref.last);
  }

  const index = seriesOf(ctx, BOOK_INDEX[book]);
  const partial: Omit<Reading, "oppPct">[] = members.map((m, i) => {
    const states: EntryState[] = [];
    for (let k = H; k >= 0; k--) {
      const t = m.last - k;
      const rsK = at(at(rsPctAt, k), i).value;
      states.push(m.state(t, m.ttBase(t) + (rsK >= TREND_TEMPLATE.rsPct ? 1 : 0)));
    }
    const state = at(states, H);
    let daysInState = 0;
    for (let j = H; j >= 1 && at(states, j) === state; j--) daysInState++;
    const trigger = currentTrigger(m, states);
    const rsPct = at(at(rsPctAt, 0), i);
    const tt = m.ttBase(m.last) + (rsPct.value >= TREND_TEMPLATE.rsPct ? 1 : 0);
    const tightPct = at(tight, i);
    const dryPct = at(dry, i);
    const entryQ = (100 * (m.emaCloseness + (1 - tightPct.value / ENTRY_PCT_SCALE) + dryPct.value / ENTRY_PCT_SCALE)) / 3;
    const nearHighPct = at(nearHigh, i);
    const sectorRelPct = at(sectorRel, i);
    const oppScore =
      100 *
      ((OPP_WEIGHTS.rs * rsPct.value) / 99 +
        (OPP_WEIGHTS.trend * tt) / 8 +
        (OPP_WEIGHTS.nearHigh * nearHighPct.value) / 99 +
        (OPP_WEIGHTS.sectorRel * sectorRelPct.value) / 99 +
        (OPP_WEIGHTS.entry * entryQ) / 100);
    const points = m.holdPoints;
    const sectorEtf = seriesOf(ctx, sectorEtfOf(m.entry, ctx));
    const isLeader =
      rsPct.value >= LEADER.rsPct && m.price >= LEADER.nearHigh * m.v(m.hi252, m.last, "H252") && relativeAboveMean(m, index) && sectorEtf.aboveSma50();
    const gapRisk: Pct = gapOf.get(m.sym) ?? { value: 0, accept: [0], tied: false };
    const pcts = [rsPct, nearHighPct, tightPct, dryPct, sectorRelPct, at(growth, i), gapRisk];
    return {
      sym: m.sym,
      book,
      s: m,
      rsPct,
      tt,
      states,
      state,
      prevState: at(states, H - 1),
      trigger,
      light: trigger !== null && trigger.t >= m.last - 1 ? "firing" : "cold",
      daysInState,
      nearHighPct,
      tightPct,
      dryPct,
      sectorRelPct,
      growth: at(growth, i),
      gapRisk,
      entryQ,
      oppScore,
      holdQ: points + (HOLD.rs * rsPct.value) / 99,
      holdLabel: holdLabelOf(points, rsPct.value),
      isLeader,
      tiedPcts: pcts.filter((p) => p.tied).length,
    };
  });
  const oppPct = percentileRanks(partial.map((r) => published(r.oppScore)));
  return new Map(
    partial.map((r, i) => {
      const p = at(oppPct, i);
      return [r.sym, { ...r, oppPct: p, tiedPcts: r.tiedPcts + (p.tied ? 1 : 0) }];
    }),
  );
}
