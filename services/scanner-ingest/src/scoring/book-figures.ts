// A book's reading of its members: every percentile of SCORING.md ranked among the book's members
// (never the whole universe), and what follows from them: the trend template, the entry state and
// its recent history, the trigger and light, entry quality, opportunity and its percentile, hold
// strength and leadership. A name in two books is read once per book; its record carries its
// first book's reading (board.ts), each book's own views carry that book's.

import type { EntryState, Light, Trigger } from "@board/proto";
import type { PreparedBars, Technicals } from "./features.js";
import { percentileRanks } from "./percentile.js";
import { chandelierStop } from "./setup.js";
import { entryState, trendTemplate } from "./state.js";
import { triggerOf, type StateBar } from "./trigger.js";
import { ENTRY_Q, HOLD, LEADER, OPP_WEIGHTS, WINDOWS } from "./weights.js";

/** What the book reads of one member, all book-independent. */
export type MemberInput = {
  /** Technicals of the last STATE_HISTORY_BARS + 1 bars, oldest first, today last; null before the first bar. */
  history: readonly (Technicals | null)[];
  bars: PreparedBars;
  /** r63 of the name's reference (its sector ETF, else its first book's index). */
  referenceR63: number;
  /** Raw growth (slope x R squared) and raw gap risk (NaN for crypto: it is not ranked). */
  growthRaw: number;
  gapRaw: number;
  /** Is the name's sector ETF (itself for an Index name) above its 50-day average? */
  sectorAbove: boolean;
  crypto: boolean;
};

export type BookFigures = {
  rsPct: number;
  tt: number;
  state: EntryState;
  prevState: EntryState | null;
  entryQ: number;
  opp: number;
  /** opp rounded as published: the percentile ranks these. */
  oppScore: number;
  oppPct: number;
  holdQ: number;
  isLeader: boolean;
  growthPct: number;
  gapPct: number;
  light: Light;
  trigger: Trigger | null;
  /** The trigger bar's technicals (its EMA21, ATR and pivot place the entry window). */
  triggerBar: Technicals | null;
  daysInState: number;
};

const round1 = (x: number) => Math.round(Math.min(100, Math.max(0, x)) * 10) / 10;

/** Is today's relative line (name over index) above its own 50-bar average? Dates align by label. */
function relativeAboveAverage(name: PreparedBars, index: ReadonlyMap<string, number>): boolean {
  const rel: number[] = [];
  for (let i = name.close.length - 1; i >= 0 && rel.length < WINDOWS.leaderRelative; i--) {
    const ic = index.get(name.dates[i]!);
    if (ic !== undefined) rel.push(name.close[i]! / ic);
  }
  const today = index.get(name.dates[name.dates.length - 1]!);
  if (today === undefined || rel.length === 0) return false;
  const mean = rel.reduce((a, b) => a + b, 0) / rel.length;
  return rel[0]! > mean;
}

/**
 * Reads every member of one book. `indexCloses` is the book index's close by date (the leader's
 * relative line). Members' histories align from the end: bar k back is each member's k-th bar
 * before its last, and the trend template of that bar ranks RS among the members on the same k.
 */
export function readBook(members: readonly MemberInput[], indexCloses: ReadonlyMap<string, number>): BookFigures[] {
  const n = members.length;
  if (n === 0) return [];
  const depth = members[0]!.history.length;
  // State of every member on every bar of the history, with RS ranked on that bar.
  const states: (EntryState | null)[][] = members.map(() => new Array<EntryState | null>(depth).fill(null));
  const tts: number[] = new Array<number>(n).fill(0);
  const rsToday: number[] = [];
  for (let j = 0; j < depth; j++) {
    const rs = percentileRanks(members.map((m) => m.history[j]?.rs ?? Number.NaN));
    for (let i = 0; i < n; i++) {
      const t = members[i]!.history[j];
      if (!t) continue;
      const tt = trendTemplate(t, rs[i]!);
      states[i]![j] = entryState(t, tt);
      if (j === depth - 1) tts[i] = tt;
    }
    if (j === depth - 1) rsToday.push(...rs);
  }

  const today = members.map((m) => m.history[depth - 1]!);
  const nearPct = percentileRanks(today.map((t) => t.nearHigh));
  const tightPct = percentileRanks(today.map((t) => t.atrShort / t.atrLong));
  const dryPct = percentileRanks(today.map((t) => 1 - t.volumeShort / t.volumeLong));
  const relPct = percentileRanks(today.map((t, i) => t.r63 - members[i]!.referenceR63));
  const growthPct = percentileRanks(members.map((m) => m.growthRaw));
  const gapPct = percentileRanks(members.map((m) => (m.crypto ? Number.NaN : m.gapRaw)));

  const figures = members.map((m, i): BookFigures => {
    const t = today[i]!;
    const rs = rsToday[i]!;
    // A bar series without range (ATR 0) reads as far from EMA21 unless it sits right on it.
    const emaDistance = t.atr > 0 ? Math.abs(t.close - t.ema21) / (ENTRY_Q.emaAtr * t.atr) : t.close === t.ema21 ? 0 : 1;
    // A percentile becomes a fraction by /99 here as in opportunity (SCORING.md's rs_pct/99): the top rank is 1.
    const entryQ = (100 * (1 - Math.min(1, emaDistance) + (1 - tightPct[i]! / 99) + dryPct[i]! / 99)) / 3;
    const opp =
      100 *
      (OPP_WEIGHTS.rs * (rs / 99) +
        OPP_WEIGHTS.trend * (tts[i]! / 8) +
        OPP_WEIGHTS.nearHigh * (nearPct[i]! / 99) +
        OPP_WEIGHTS.sectorRel * (relPct[i]! / 99) +
        OPP_WEIGHTS.entry * (entryQ / 100));
    const holdQ =
      (t.close > t.sma50 ? HOLD.aboveSma50 : 0) +
      (t.sma50 > t.sma200 ? HOLD.sma50AboveSma200 : 0) +
      (t.close > chandelierStop(t) ? HOLD.aboveChandelier : 0) +
      HOLD.rs * (rs / 99) +
      (t.sma200 > t.sma200Past ? HOLD.sma200Rising : 0);
    const isLeader =
      rs >= LEADER.rsPct && t.close >= LEADER.nearHigh * t.high252 && relativeAboveAverage(m.bars, indexCloses) && m.sectorAbove;
    const history: StateBar[] = states[i]!.map((state, j) => ({ state, breakout: m.history[j]?.breakout ?? false }));
    const read = triggerOf(history);
    return {
      rsPct: rs,
      tt: tts[i]!,
      state: states[i]![depth - 1]!,
      prevState: depth >= 2 ? states[i]![depth - 2]! : null,
      entryQ,
      opp,
      oppScore: round1(opp),
      oppPct: 50,
      holdQ,
      isLeader,
      growthPct: growthPct[i]!,
      gapPct: m.crypto ? 0 : gapPct[i]!,
      light: read.light,
      trigger: read.trigger,
      triggerBar: read.at >= 0 ? m.history[read.at]! : null,
      daysInState: read.daysInState,
    };
  });
  // opp_pct: the percentile of the published opp_score among the book's members.
  const oppPct = percentileRanks(figures.map((f) => f.oppScore));
  figures.forEach((f, i) => (f.oppPct = oppPct[i]!));
  return figures;
}
