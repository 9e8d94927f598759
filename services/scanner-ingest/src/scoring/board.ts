// Scores the whole universe from its bars: the name records, then per book the regime verdict,
// the index and sector cards and the buy-list lanes, then the engine's selections (signals) and
// every name's setup for the live tier.
// Pure and synchronous: bars (and the crypto quotes of the scan) in, board out.

import {
  BOOK_ORDER,
  SectorLabel,
  type Book,
  type BookCode,
  type BoardSignals,
  type Card,
  type EngineSetup,
  type NameRecord,
  type PermissionLadder,
  type RegimeVerdict,
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
  smaAt,
  technicalsAt,
  type PreparedBars,
  type Technicals,
} from "./features.js";
import { RatioLine, completedEnd, equityRegimeBars, trendBars } from "./history.js";
import { buildLanes, type LaneCandidate } from "./lanes.js";
import { percentileRanks, percentileRanksWithin } from "./percentile.js";
import { cryptoRegime, equityRegime, trendOf, type SectorRead, type TrendRead } from "./regime.js";
import { cryptoNightOf, cryptoSignalOf, leadersOf, moversOf, topVolumeOf, tradfiRiskOf, type CryptoQuote, type TradfiMember } from "./signals.js";
import { chandelierStop, setupOf, structuralStop, type StructuralStop } from "./setup.js";
import { entryState, holdLabel, lightOf, liquidityTier, trendTemplate } from "./state.js";
import { ENTRY_Q, HOLD, LEADER, OPP_WEIGHTS, WINDOWS, YEAR_BARS } from "./weights.js";

/** A name's bars, oldest first; `partial` when the last one is today's bar still in progress. */
export type NameBars = { bars: readonly Bar[]; partial: boolean };

/**
 * The crypto quotes of the scan for the crypto signals: the last US session close (ISO 8601 with
 * its offset) and, per crypto asset, the price at that close and the latest price. An asset
 * without a quote shows its last bar's close as its price and is left out of crypto_night.
 */
export type CryptoQuotes = {
  usClose: string;
  quotes: readonly CryptoQuote[];
};

export type ScoreInput = {
  universe: Universe;
  series: ReadonlyMap<string, NameBars>;
  asofDaily: string;
  crypto: CryptoQuotes;
};

/** `setups`: one per name, in the names' order (the snapshot's engine section). */
export type ScoredBoard = { names: NameRecord[]; books: Record<BookCode, Book>; signals: BoardSignals; setups: EngineSetup[] };

const round = (x: number, dp: number) => {
  const f = 10 ** dp;
  return Math.round(x * f) / f;
};
const score = (x: number) => round(Math.min(100, Math.max(0, x)), 1);

type Scored = {
  entry: UniverseEntry;
  bars: PreparedBars;
  /** The last bar is today's partial bar. */
  partial: boolean;
  now: Technicals;
  record: NameRecord;
  stop: StructuralStop;
  chandelier: number;
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
  // r63 against the sector ETF; a sector ETF itself, an Index name or a crypto asset against its first book's index.
  const referenceOf = (e: UniverseEntry): string =>
    e.kind === "crypto" || e.sector === "Index" || sectorEtfs[e.sector] === e.sym ? BOOKS[e.books[0]!].index : sectorEtfs[e.sector];
  const relPct = percentileRanks(entries.map((e, i) => now[i]!.r63 - nowOf(referenceOf(e)).r63));
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
    const tt = trendTemplate(t, rs);
    const state = entryState(t, tt);
    const prevState = entryState(prev[i]!, trendTemplate(prev[i]!, rsPctPrev[i]!));
    // A bar series without range (ATR 0) reads as far from EMA21 unless it sits right on it.
    const emaDistance = t.atr > 0 ? Math.abs(t.close - t.ema21) / (ENTRY_Q.emaAtr * t.atr) : t.close === t.ema21 ? 0 : 1;
    const entryQ = (100 * (1 - Math.min(1, emaDistance) + (1 - tightPct[i]! / 100) + dryPct[i]! / 100)) / 3;
    const opp =
      100 *
      (OPP_WEIGHTS.rs * (rs / 99) +
        OPP_WEIGHTS.trend * (tt / 8) +
        OPP_WEIGHTS.nearHigh * (nearPct[i]! / 99) +
        OPP_WEIGHTS.sectorRel * (relPct[i]! / 99) +
        OPP_WEIGHTS.entry * (entryQ / 100));
    const chandelier = chandelierStop(t);
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
      light: lightOf(state, prevState),
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
    return { entry, bars: p, partial, now: t, record, stop: structuralStop(p, last[i]!, t), chandelier };
  });

  // opp_pct: percentile of the published opp_score within the name's first book.
  const opp = scored.map((s) => s.record.opp_score);
  for (const code of BOOK_ORDER) {
    const members = scored.flatMap((s, i) => (s.entry.books[0] === code ? [i] : []));
    for (const [i, pct] of percentileRanksWithin(opp, members)) scored[i]!.record.opp_pct = pct;
  }
  return scored;
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

/** The crypto book's trends and verdict. */
function cryptoBook(def: BookDef, get: (sym: string) => Scored, b50: number, b200: number, sectors: readonly SectorRead[]) {
  const trend = (s: Scored): TrendRead => {
    const { closes, partial } = trendBars(s);
    return trendOf(closes, partial);
  };
  const btc = get(def.index);
  const eth = get(CRYPTO_SECOND);
  const btcTrend = trend(btc);
  const ethTrend = trend(eth);
  const regime = cryptoRegime({ book: def, btc: btcTrend, eth: ethTrend, index: btc.now, breadth50: b50, breadth200: b200, sectors });
  return { regime, trends: [{ s: btc, trend: btcTrend }, { s: eth, trend: ethTrend }] };
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
  const regimes = {} as Record<BookCode, RegimeVerdict>;
  let cryptoTrends: ReturnType<typeof cryptoBook>["trends"] = [];
  let creditNow: boolean | null = null;
  const permittedIn = new Map<string, BookCode[]>();
  for (const code of BOOK_ORDER) {
    const def = BOOKS[code];
    const members = scored.filter((s) => s.entry.books.includes(code));
    const share = (f: (t: Technicals) => boolean) =>
      members.length === 0 ? 0 : (100 * members.filter((s) => f(s.now)).length) / members.length;
    const index = get(def.index);
    let regime: RegimeVerdict;
    if (def.rules === "crypto") {
      const c = cryptoBook(def, get, share((t) => t.close > t.sma50), share((t) => t.close > t.sma200), sectors);
      regime = c.regime;
      cryptoTrends = c.trends;
    } else {
      const credit = def.credit ? new RatioLine(get(def.credit.num).bars, get(def.credit.den).bars) : null;
      const { closes, partial } = equityRegimeBars(
        index,
        members.map((s) => s.bars),
        credit,
      );
      regime = equityRegime({ book: def, closes, partial, sectors });
      const latest = partial ?? closes[closes.length - 1];
      if (credit && latest) creditNow = latest.creditOk;
    }
    regimes[code] = regime;
    const { ladder } = regime;
    const permitted = members.filter((s) => isPermitted(s, def, ladder, sectorEtfs));
    for (const s of permitted) {
      const books = permittedIn.get(s.entry.sym);
      if (books) books.push(code);
      else permittedIn.set(s.entry.sym, [code]);
    }
    const candidates: LaneCandidate[] = permitted.map((s) => ({
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
      stop: s.stop.price,
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

  const names = scored.map((s) => s.record);
  const quotes = new Map(input.crypto.quotes.map((q) => [q.sym, q]));
  const tradfiMembers = new Map<string, TradfiMember>(
    scored
      .filter((s) => s.entry.books.includes("macro"))
      .map((s) => [s.entry.sym, { sym: s.entry.sym, state: s.record.state, aboveSma50: s.now.close > s.now.sma50 }]),
  );
  const signals: BoardSignals = {
    leaders: leadersOf(names),
    movers: moversOf(names),
    top_volume: topVolumeOf(names),
    crypto: cryptoSignalOf(
      regimes.crypto,
      cryptoTrends.map(({ s, trend }) => {
        const end = completedEnd(s);
        return {
          sym: s.entry.sym,
          trend,
          lastClose: { date: s.bars.dates[end]!, close: s.bars.close[end]!, sma50: smaAt(s.bars, end, WINDOWS.sma50) },
          price: quotes.get(s.entry.sym)?.now ?? s.now.close,
        };
      }),
    ),
    crypto_night: cryptoNightOf(
      input.crypto.usClose,
      cryptoTrends.flatMap(({ s }) => {
        const q = quotes.get(s.entry.sym);
        return q ? [q] : [];
      }),
    ),
    tradfi_risk: tradfiRiskOf(regimes.macro, creditNow ?? true, tradfiMembers),
  };
  const setups = scored.map((s) =>
    setupOf({
      sym: s.entry.sym,
      close: s.now.close,
      atr: s.now.atr,
      stop: s.stop,
      chandelier: s.chandelier,
      opp_score: s.record.opp_score,
      entry_q: s.record.entry_q,
      hold_q: s.record.hold_q,
      state: s.record.state,
      is_leader: s.record.is_leader,
      permitted: permittedIn.get(s.entry.sym) ?? [],
    }),
  );
  return { names, books, signals, setups };
}
