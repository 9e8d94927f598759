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
import { readBook, type BookFigures, type MemberInput } from "./book-figures.js";
import { buildLanes, type LaneCandidate } from "./lanes.js";
import { cryptoRegime, equityRegime, trendOf, type SectorRead, type TrendRead } from "./regime.js";
import {
  cryptoNightOf,
  cryptoSignalOf,
  leadersOf,
  moversOf,
  topVolumeOf,
  tradfiRiskOf,
  type CryptoQuote,
  type LeaderCandidate,
  type TradfiMember,
} from "./signals.js";
import { chandelierStop, entryWindowOf, setupOf, structuralStop, type StructuralStop } from "./setup.js";
import { holdLabel, liquidityTier } from "./state.js";
import { STATE_HISTORY_BARS, WINDOWS, YEAR_BARS } from "./weights.js";

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

/**
 * A book's reading of one member, as published fields would show it: the record's figures
 * ranked among that book's members. The record of a name is its first book's reading.
 */
export type BookReading = Pick<
  NameRecord,
  "sym" | "opp_score" | "opp_pct" | "state" | "prev_state" | "light" | "entry_q" | "hold_q" | "is_leader" | "growth_score" | "gap_risk" | "tt_count" | "trigger" | "trigger_date" | "days_in_state"
> & { rs_pct: number };

/**
 * `setups`: one per name, in the names' order (the snapshot's engine section). `readings`: every
 * book's reading of each of its members, in the universe's order (what its lanes, cards and
 * leaders were built from; not published as such).
 */
export type ScoredBoard = {
  names: NameRecord[];
  books: Record<BookCode, Book>;
  signals: BoardSignals;
  setups: EngineSetup[];
  readings: Record<BookCode, BookReading[]>;
};

function readingOf(sym: string, f: BookFigures): BookReading {
  return {
    sym,
    opp_score: f.oppScore,
    opp_pct: f.oppPct,
    state: f.state,
    prev_state: f.prevState,
    light: f.light,
    entry_q: score(f.entryQ),
    hold_q: score(f.holdQ),
    is_leader: f.isLeader,
    growth_score: score(f.growthPct),
    gap_risk: score(f.gapPct),
    tt_count: f.tt,
    trigger: f.trigger,
    trigger_date: f.triggerBar?.date ?? null,
    days_in_state: f.daysInState,
    rs_pct: f.rsPct,
  };
}

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
  /** The record: its first book's reading (ranked_in). */
  record: NameRecord;
  stop: StructuralStop;
  chandelier: number;
  /** The name's reading in each of its books, and the record's one. */
  byBook: Map<BookCode, BookFigures>;
  home: BookFigures;
};

function closeByDate(p: PreparedBars): Map<string, number> {
  return new Map(p.dates.map((d, i) => [d, p.close[i]!]));
}

/** Technicals of the last STATE_HISTORY_BARS + 1 bars, oldest first; null before the first bar. */
function historyOf(p: PreparedBars): (Technicals | null)[] {
  const last = p.close.length - 1;
  const out: (Technicals | null)[] = [];
  for (let k = STATE_HISTORY_BARS; k >= 0; k--) out.push(last - k >= 0 ? technicalsAt(p, last - k) : null);
  return out;
}

function scoreNames(input: ScoreInput): Scored[] {
  const { entries, sectorEtfs } = input.universe;
  const prepared = entries.map((e) => {
    const s = input.series.get(e.sym);
    if (!s || s.bars.length < 2) throw new Error(`scoring: ${e.sym} has ${s?.bars.length ?? 0} bars, at least 2 needed`);
    return prepareBars(s.bars);
  });
  const last = prepared.map((p) => p.close.length - 1);
  const histories = prepared.map(historyOf);
  const now = histories.map((h) => h[h.length - 1]!);

  const indexOf = new Map(entries.map((e, i) => [e.sym, i]));
  const nowOf = (sym: string): Technicals => {
    const i = indexOf.get(sym);
    if (i === undefined) throw new Error(`scoring: ${sym} is not in the universe`);
    return now[i]!;
  };
  // r63 against the sector ETF; a sector ETF itself, an Index name or a crypto asset against its first book's index.
  const referenceOf = (e: UniverseEntry): string =>
    e.kind === "crypto" || e.sector === "Index" || sectorEtfs[e.sector] === e.sym ? BOOKS[e.books[0]!].index : sectorEtfs[e.sector];
  const sectorAbove = (sector: SectorOrIndex, self: Technicals) => {
    const t = sector === "Index" ? self : nowOf(sectorEtfs[sector]);
    return t.close > t.sma50;
  };
  const inputs = entries.map(
    (e, i): MemberInput => ({
      history: histories[i]!,
      bars: prepared[i]!,
      referenceR63: nowOf(referenceOf(e)).r63,
      growthRaw: growthRaw(prepared[i]!, last[i]!, e.kind === "crypto" ? YEAR_BARS.crypto : YEAR_BARS.equity),
      gapRaw: e.kind === "crypto" ? Number.NaN : gapRaw(prepared[i]!, last[i]!),
      sectorAbove: sectorAbove(e.sector, now[i]!),
      crypto: e.kind === "crypto",
    }),
  );

  // Every book reads its own members: percentiles never cross a book's edge.
  const byBook = entries.map(() => new Map<BookCode, BookFigures>());
  for (const code of BOOK_ORDER) {
    const members = entries.flatMap((e, i) => (e.books.includes(code) ? [i] : []));
    const index = indexOf.get(BOOKS[code].index);
    if (index === undefined) throw new Error(`scoring: ${BOOKS[code].index} is not in the universe`);
    const figures = readBook(
      members.map((i) => inputs[i]!),
      closeByDate(prepared[index]!),
    );
    members.forEach((i, k) => byBook[i]!.set(code, figures[k]!));
  }

  return entries.map((entry, i): Scored => {
    const p = prepared[i]!;
    const t = now[i]!;
    const home = byBook[i]!.get(entry.books[0]!)!;
    const partial = input.series.get(entry.sym)!.partial;
    const adv20 = averageDollarVolume(p, partial ? last[i]! - 1 : last[i]!, WINDOWS.adv);
    const holdQ = score(home.holdQ);
    const record: NameRecord = {
      sym: entry.sym,
      name: entry.name,
      sector: entry.sector,
      bk: [...entry.books],
      price: Math.max(0.01, round(t.close, 2)),
      chg_pct: round(t.chgPct, 2),
      opp_score: home.oppScore,
      opp_pct: home.oppPct,
      state: home.state,
      prev_state: home.prevState,
      light: home.light,
      entry_q: score(home.entryQ),
      hold_q: holdQ,
      hold_label: holdLabel(holdQ),
      is_leader: home.isLeader,
      growth_score: score(home.growthPct),
      gap_risk: score(home.gapPct),
      dollar_volume: Math.round(t.close * p.volume[last[i]!]!),
      adv20_usd: Math.round(adv20),
      liquidity: liquidityTier(adv20),
      ranked_in: entry.books[0]!,
      tt_count: home.tt,
      trigger: home.trigger,
      trigger_date: home.triggerBar?.date ?? null,
      days_in_state: home.daysInState,
    };
    return { entry, bars: p, partial, now: t, record, stop: structuralStop(p, last[i]!, t), chandelier: chandelierStop(t), byBook: byBook[i]!, home };
  });
}

/** Does the book's ladder let the name be bought now? Leadership is the book's own reading. */
function isPermitted(s: Scored, f: BookFigures, def: BookDef, ladder: PermissionLadder, sectorEtfs: Universe["sectorEtfs"]): boolean {
  const { sym, sector } = s.entry;
  if (sym === def.index) return ladder.index;
  // Another index ETF has no sector: only NAMES_ON ("any name whose sector ETF is above its 50-day")
  // reaches it, read against its own 50-day average; SELECTIVE opens sectors' leaders, not indexes.
  if (sector === "Index") return ladder.names === "green_sectors" && s.now.close > s.now.sma50;
  if (sectorEtfs[sector] === sym) return ladder.sectors.includes(sector);
  switch (ladder.names) {
    case "none":
      return false;
    case "leaders_in_top_sectors":
      return f.isLeader && ladder.sectors.includes(sector);
    case "green_sectors":
      return ladder.sectors.includes(sector);
  }
}

/** A card in book `code`: the book's own reading of a member, else the name's record (its first book's). */
function cardOf(s: Scored, code: BookCode, label: SectorOrIndex, green: boolean): Card {
  const f = s.byBook.get(code);
  return {
    sym: s.entry.sym,
    label,
    score: f ? f.oppScore : s.record.opp_score,
    pct: f ? f.oppPct : s.record.opp_pct,
    light: f ? f.light : s.record.light,
    state: f ? f.state : s.record.state,
    above_sma50: s.now.close > s.now.sma50,
    green,
    ranked_in: f ? code : s.record.ranked_in,
  };
}

/** The entry window of a name as book `f` reads it (null unless READY or SETUP). */
const windowOf = (s: Scored, f: BookFigures) => entryWindowOf(f.state, f.trigger, f.triggerBar, s.now, s.stop.price);

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
  const leaders = {} as Record<BookCode, LeaderCandidate[]>;
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
    const inBook = (s: Scored) => s.byBook.get(code)!;
    const permitted = members.filter((s) => isPermitted(s, inBook(s), def, ladder, sectorEtfs));
    for (const s of permitted) {
      const books = permittedIn.get(s.entry.sym);
      if (books) books.push(code);
      else permittedIn.set(s.entry.sym, [code]);
    }
    const candidates = permitted.map((s): LaneCandidate => {
      const f = inBook(s);
      const holdQ = score(f.holdQ);
      return {
        sym: s.entry.sym,
        opp_score: f.oppScore,
        entry_q: score(f.entryQ),
        state: f.state,
        light: f.light,
        is_leader: f.isLeader,
        gap_risk: score(f.gapPct),
        liquidity: s.record.liquidity,
        hold_label: holdLabel(holdQ),
        close: s.now.close,
        atr: s.now.atr,
        stop: s.stop,
        window: windowOf(s, f),
      };
    });
    leaders[code] = members.map((s) => ({ sym: s.entry.sym, is_leader: inBook(s).isLeader, opp_score: inBook(s).oppScore }));
    books[code] = {
      code,
      title: def.title,
      members: members.length,
      regime,
      index_card: cardOf(index, code, "Index", ladder.index),
      sector_cards: labels.map((label, k) => cardOf(sectorScored[k]!, code, label, ladder.sectors.includes(label))),
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
    leaders: leadersOf(leaders),
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
      hold_label: s.record.hold_label,
      liquidity: s.record.liquidity,
      state: s.record.state,
      is_leader: s.record.is_leader,
      trigger: s.home.trigger,
      triggerBar: s.home.triggerBar,
      today: s.now,
      permitted: permittedIn.get(s.entry.sym) ?? [],
    }),
  );
  const readings = Object.fromEntries(
    BOOK_ORDER.map((code) => [code, scored.flatMap((s) => (s.byBook.has(code) ? [readingOf(s.entry.sym, s.byBook.get(code)!)] : []))]),
  ) as Record<BookCode, BookReading[]>;
  return { names, books, signals, setups, readings };
}
