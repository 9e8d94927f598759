// Scores the whole universe from its bars: the name records, then per book the regime verdict,
// the index and sector cards and the buy-list lanes. Pure and synchronous: bars in, board out.

import {
  BOOK_ORDER,
  SectorLabel,
  type Book,
  type BookCode,
  type Card,
  type NameRecord,
  type PermissionLadder,
  type SectorOrIndex,
} from "@board/proto";
import type { Bar } from "../market/provider.js";
import type { Universe, UniverseEntry } from "../universe.js";
import { BOOKS, CRYPTO_SECOND, type BookDef } from "./books.js";
import {
  averageDollarVolume,
  gapRaw,
  growthRaw,
  prepareBars,
  technicalsAt,
  type PreparedBars,
  type Technicals,
} from "./features.js";
import { buildLanes, type LaneCandidate } from "./lanes.js";
import { percentileRanks, percentileRanksWithin } from "./percentile.js";
import { regimeVerdict, type SectorRead } from "./regime.js";
import { entryState, holdLabel, liquidityTier, trendTemplate } from "./state.js";
import { ENTRY_Q, HOLD, LEADER, OPP_WEIGHTS, WINDOWS, YEAR_BARS } from "./weights.js";

/** A name's bars, oldest first; `partial` when the last one is today's bar still in progress. */
export type NameBars = { bars: readonly Bar[]; partial: boolean };

export type ScoreInput = {
  universe: Universe;
  series: ReadonlyMap<string, NameBars>;
  asofDaily: string;
};

export type ScoredBoard = { names: NameRecord[]; books: Record<BookCode, Book> };

const round = (x: number, dp: number) => {
  const f = 10 ** dp;
  return Math.round(x * f) / f;
};
const score = (x: number) => round(Math.min(100, Math.max(0, x)), 1);

type Scored = {
  entry: UniverseEntry;
  bars: PreparedBars;
  now: Technicals;
  record: NameRecord;
};

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

function closeByDate(p: PreparedBars): Map<string, number> {
  return new Map(p.dates.map((d, i) => [d, p.close[i]!]));
}

function scoreNames(input: ScoreInput): Scored[] {
  const { entries, sectorEtfs } = input.universe;
  const prepared = entries.map((e) => {
    const s = input.series.get(e.sym);
    if (!s || s.bars.length < 2) throw new Error(`scoring: ${e.sym} has ${s?.bars.length ?? 0} bars, at least 2 needed`);
    return prepareBars(s.bars);
  });
  const last = prepared.map((p) => p.close.length - 1);
  const now = prepared.map((p, i) => technicalsAt(p, last[i]!));
  const prev = prepared.map((p, i) => technicalsAt(p, last[i]! - 1));

  // Cross-sectional percentiles over the whole universe (opp_pct alone is per book, below).
  const rsPct = percentileRanks(now.map((t) => t.rs));
  const rsPctPrev = percentileRanks(prev.map((t) => t.rs));
  const nearPct = percentileRanks(now.map((t) => t.nearHigh));
  const tightPct = percentileRanks(now.map((t) => t.atrShort / t.atrLong));
  const dryPct = percentileRanks(now.map((t) => 1 - t.volumeShort / t.volumeLong));
  const growthPct = percentileRanks(
    prepared.map((p, i) => growthRaw(p, last[i]!, entries[i]!.kind === "crypto" ? YEAR_BARS.crypto : YEAR_BARS.equity)),
  );
  const gapPct = percentileRanks(prepared.map((p, i) => (entries[i]!.kind === "crypto" ? Number.NaN : gapRaw(p, last[i]!))));

  const indexOf = new Map(entries.map((e, i) => [e.sym, i]));
  const nowOf = (sym: string): Technicals => {
    const i = indexOf.get(sym);
    if (i === undefined) throw new Error(`scoring: ${sym} is not in the universe`);
    return now[i]!;
  };
  const indexCloses = new Map<string, Map<string, number>>();
  const indexClosesOf = (sym: string) => {
    let m = indexCloses.get(sym);
    if (!m) indexCloses.set(sym, (m = closeByDate(prepared[indexOf.get(sym)!]!)));
    return m;
  };
  const sectorAbove = (sector: SectorOrIndex, self: Technicals) => {
    const t = sector === "Index" ? self : nowOf(sectorEtfs[sector]);
    return t.close > t.sma50;
  };

  const scored = entries.map((entry, i): Scored => {
    const p = prepared[i]!;
    const t = now[i]!;
    const rs = rsPct[i]!;
    const state = entryState(t, trendTemplate(t, rs));
    const prevState = entryState(prev[i]!, trendTemplate(prev[i]!, rsPctPrev[i]!));
    const entryQ =
      (100 *
        (1 -
          Math.min(1, Math.abs(t.close - t.ema21) / (ENTRY_Q.emaAtr * t.atr)) +
          (1 - tightPct[i]! / 100) +
          dryPct[i]! / 100)) /
      3;
    const opp = 100 * (OPP_WEIGHTS.rs * (rs / 99) + OPP_WEIGHTS.nearHigh * (nearPct[i]! / 99));
    const chandelier = t.highestHighChandelier - HOLD.chandelierAtr * t.atrChandelier;
    const holdQ =
      (t.close > t.sma50 ? HOLD.aboveSma50 : 0) +
      (t.sma50 > t.sma200 ? HOLD.sma50AboveSma200 : 0) +
      (t.close > chandelier ? HOLD.aboveChandelier : 0) +
      HOLD.rs * (rs / 99) +
      (t.sma200 > t.sma200Past ? HOLD.sma200Rising : 0);
    const primary = BOOKS[entry.books[0]!];
    const isLeader =
      rs >= LEADER.rsPct &&
      t.close >= LEADER.nearHigh * t.high252 &&
      relativeAboveAverage(p, indexClosesOf(primary.index)) &&
      sectorAbove(entry.sector, t);
    const partial = input.series.get(entry.sym)!.partial;
    const adv20 = averageDollarVolume(p, partial ? last[i]! - 1 : last[i]!, WINDOWS.adv);
    const record: NameRecord = {
      sym: entry.sym,
      name: entry.name,
      sector: entry.sector,
      bk: [...entry.books],
      price: Math.max(0.01, round(t.close, 2)),
      chg_pct: round(t.chgPct, 2),
      opp_score: score(opp),
      opp_pct: 50, // set per book below
      state,
      prev_state: prevState,
      light: state === "READY" || prevState === "READY" ? "firing" : "cold",
      entry_q: score(entryQ),
      hold_q: score(holdQ),
      hold_label: holdLabel(score(holdQ)),
      is_leader: isLeader,
      growth_score: score(growthPct[i]!),
      gap_risk: entry.kind === "crypto" ? 0 : score(gapPct[i]!),
      dollar_volume: Math.round(t.close * p.volume[last[i]!]!),
      adv20_usd: Math.round(adv20),
      liquidity: liquidityTier(adv20),
    };
    return { entry, bars: p, now: t, record };
  });

  // opp_pct: percentile of the published opp_score within the name's first book.
  const opp = scored.map((s) => s.record.opp_score);
  for (const code of BOOK_ORDER) {
    const members = scored.flatMap((s, i) => (s.entry.books[0] === code ? [i] : []));
    for (const [i, pct] of percentileRanksWithin(opp, members)) scored[i]!.record.opp_pct = pct;
  }
  return scored;
}

/** Is num/den above its average over the last `n` shared dates? */
function ratioAboveAverage(num: PreparedBars, den: PreparedBars, n: number): boolean {
  const d = closeByDate(den);
  const ratio: number[] = [];
  for (let i = num.close.length - 1; i >= 0 && ratio.length < n; i--) {
    const dc = d.get(num.dates[i]!);
    if (dc !== undefined) ratio.push(num.close[i]! / dc);
  }
  if (ratio.length === 0) return false;
  return ratio[0]! > ratio.reduce((a, b) => a + b, 0) / ratio.length;
}

function isPermitted(s: Scored, def: BookDef, ladder: PermissionLadder, sectorEtfs: Universe["sectorEtfs"]): boolean {
  const { sym, sector } = s.entry;
  if (sym === def.index) return ladder.index;
  if (sector === "Index") return ladder.index && ladder.names !== "none";
  if (sectorEtfs[sector] === sym) return ladder.sectors.includes(sector);
  switch (ladder.names) {
    case "none":
      return false;
    case "leaders_in_top_sectors":
      return s.record.is_leader && ladder.sectors.includes(sector);
    case "green_sectors":
      return ladder.sectors.includes(sector);
  }
}

function cardOf(s: Scored, label: SectorOrIndex, pct: number, green: boolean): Card {
  return {
    sym: s.entry.sym,
    label,
    score: s.record.opp_score,
    pct,
    light: s.record.light,
    state: s.record.state,
    above_sma50: s.now.close > s.now.sma50,
    green,
  };
}

export function scoreBoard(input: ScoreInput): ScoredBoard {
  const scored = scoreNames(input);
  const { sectorEtfs } = input.universe;
  const bySym = new Map(scored.map((s) => [s.entry.sym, s]));
  const get = (sym: string): Scored => {
    const s = bySym.get(sym);
    if (!s) throw new Error(`scoring: ${sym} is not in the universe`);
    return s;
  };

  const labels = SectorLabel.options;
  const sectorScored = labels.map((label) => get(sectorEtfs[label]));
  const sectorPct = percentileRanks(sectorScored.map((s) => s.record.opp_score));
  const sectors: SectorRead[] = labels.map((label, k) => ({
    label,
    aboveSma50: sectorScored[k]!.now.close > sectorScored[k]!.now.sma50,
    r63: sectorScored[k]!.now.r63,
  }));

  const books = {} as Record<BookCode, Book>;
  for (const code of BOOK_ORDER) {
    const def = BOOKS[code];
    const members = scored.filter((s) => s.entry.books.includes(code));
    const share = (f: (t: Technicals) => boolean) =>
      members.length === 0 ? 0 : (100 * members.filter((s) => f(s.now)).length) / members.length;
    const index = get(def.index);
    const regime = regimeVerdict({
      book: def,
      asof: input.asofDaily,
      index: index.now,
      second: def.rules === "crypto" ? get(CRYPTO_SECOND).now : null,
      breadth50: share((t) => t.close > t.sma50),
      breadth200: share((t) => t.close > t.sma200),
      creditOk: def.credit ? ratioAboveAverage(get(def.credit.num).bars, get(def.credit.den).bars, WINDOWS.sma50) : null,
      sectors,
    });
    const { ladder } = regime;
    const candidates: LaneCandidate[] = members
      .filter((s) => isPermitted(s, def, ladder, sectorEtfs))
      .map((s) => ({
        sym: s.entry.sym,
        opp_score: s.record.opp_score,
        entry_q: s.record.entry_q,
        state: s.record.state,
        light: s.record.light,
        is_leader: s.record.is_leader,
        gap_risk: s.record.gap_risk,
        liquidity: s.record.liquidity,
        close: s.now.close,
        atr: s.now.atr,
      }));
    books[code] = {
      code,
      title: def.title,
      members: members.length,
      regime,
      index_card: cardOf(index, "Index", index.record.opp_pct, ladder.index),
      sector_cards: labels.map((label, k) => cardOf(sectorScored[k]!, label, sectorPct[k]!, ladder.sectors.includes(label))),
      lanes: buildLanes(candidates),
    };
  }
  return { names: scored.map((s) => s.record), books };
}
