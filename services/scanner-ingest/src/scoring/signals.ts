// The engine's selections for the board's reads (proto BoardSignals): leaders, movers, top volume,
// the crypto gate, crypto overnight and the tradfi risk read. Pure: scored records and reads in,
// symbol lists and small read objects out. Every ranking breaks ties by symbol, so the output
// never depends on the universe's order.

import {
  BOOK_ORDER,
  SectorLabel,
  STANCE_OF,
  type BookCode,
  type CryptoAssetSignal,
  type CryptoNight,
  type CryptoSignal,
  type EntryState,
  type NameRecord,
  type RegimeVerdict,
  type TradfiRisk,
} from "@board/proto";
import { BOOKS } from "./books.js";
import { distanceText, type TrendBar, type TrendRead } from "./regime.js";
import { CRYPTO_NIGHT, REGIME, SIGNALS, TRADFI } from "./weights.js";

const bySym = (a: { sym: string }, b: { sym: string }) => (a.sym < b.sym ? -1 : a.sym > b.sym ? 1 : 0);
const round = (x: number, dp: number) => {
  const f = 10 ** dp;
  return Math.round(x * f) / f;
};
const price2 = (x: number) => Math.max(0.01, round(x, 2));
const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(2)}%`;

/** A book member as its book reads it (book-figures.ts): leadership and opportunity ranked in that book. */
export type LeaderCandidate = Pick<NameRecord, "sym" | "is_leader" | "opp_score">;

/** Per book: the top SIGNALS.leaders leaders by opp_score among its members as it reads them, the book's index excluded. */
export function leadersOf(members: Readonly<Record<BookCode, readonly LeaderCandidate[]>>): Record<BookCode, string[]> {
  const out = {} as Record<BookCode, string[]>;
  for (const code of BOOK_ORDER) {
    out[code] = (members[code] ?? [])
      .filter((n) => n.is_leader && n.sym !== BOOKS[code].index)
      .sort((a, b) => b.opp_score - a.opp_score || bySym(a, b))
      .slice(0, SIGNALS.leaders)
      .map((n) => n.sym);
  }
  return out;
}

/** The top SIGNALS.movers gainers (chg_pct > 0, biggest first) and losers (chg_pct < 0, biggest drop first). */
export function moversOf(names: readonly NameRecord[]): { gainers: string[]; losers: string[] } {
  const gainers = names
    .filter((n) => n.chg_pct > 0)
    .sort((a, b) => b.chg_pct - a.chg_pct || bySym(a, b))
    .slice(0, SIGNALS.movers);
  const losers = names
    .filter((n) => n.chg_pct < 0)
    .sort((a, b) => a.chg_pct - b.chg_pct || bySym(a, b))
    .slice(0, SIGNALS.movers);
  return { gainers: gainers.map((n) => n.sym), losers: losers.map((n) => n.sym) };
}

/** Per sector label (all 20, even when empty): the top SIGNALS.topVolume names by adv20_usd. Index names are left out. */
export function topVolumeOf(names: readonly NameRecord[]): Record<SectorLabel, string[]> {
  const out = {} as Record<SectorLabel, string[]>;
  for (const label of SectorLabel.options) {
    out[label] = names
      .filter((n) => n.sector === label)
      .sort((a, b) => b.adv20_usd - a.adv20_usd || bySym(a, b))
      .slice(0, SIGNALS.topVolume)
      .map((n) => n.sym);
  }
  return out;
}

/** A crypto asset as the crypto gate reads it: its trend, its last completed UTC close and its latest price. */
export type CryptoAssetInput = { sym: string; trend: TrendRead; lastClose: TrendBar; price: number };

export function cryptoSignalOf(regime: RegimeVerdict, assets: readonly CryptoAssetInput[]): CryptoSignal {
  const signals = assets.map(
    (a): CryptoAssetSignal => ({
      sym: a.sym,
      trend: a.trend.value,
      utc_close_date: a.lastClose.date,
      utc_close: price2(a.lastClose.close),
      sma50: price2(a.lastClose.sma50),
      distance_pct: round((a.lastClose.close / a.lastClose.sma50 - 1) * 100, 2),
      since: a.trend.since,
      price: price2(a.price),
    }),
  );
  const parts = assets.map((a) => {
    const pending = a.trend.pending === null ? "" : `, pending ${a.trend.pending}`;
    return (
      `${a.sym} trend ${a.trend.value} since ${a.trend.since} ` +
      `(${distanceText(a.lastClose.close, a.lastClose.sma50)} vs its 50-day average on the ${a.lastClose.date} UTC close${pending})`
    );
  });
  const line = `${parts.join("; ")}. Crypto book ${regime.verdict}: ${regime.stance} (${REGIME.cryptoBand * 100}% band, ${REGIME.confirmCloses} closes confirm a change).`;
  return { verdict: regime.verdict, line, assets: signals };
}

/** A crypto asset's price at the last US session close and now. */
export type CryptoQuote = { sym: string; atUsClose: number; now: number };

/**
 * What the crypto assets did since the last US close (`since`, ISO 8601 with offset): risk-on when
 * every asset is up more than 1%, risk-off when any is down more than 2%, neutral otherwise. The
 * read uses the published (rounded) changes.
 */
export function cryptoNightOf(since: string, quotes: readonly CryptoQuote[]): CryptoNight {
  const assets = quotes.map((q) => ({
    sym: q.sym,
    price_at_us_close: price2(q.atUsClose),
    price: price2(q.now),
    change_pct: round((q.now / q.atUsClose - 1) * 100, 2),
  }));
  let read: CryptoNight["read"] = "neutral";
  if (assets.some((a) => a.change_pct < CRYPTO_NIGHT.riskOffBelowPct)) read = "risk-off";
  else if (assets.length > 0 && assets.every((a) => a.change_pct > CRYPTO_NIGHT.riskOnAbovePct)) read = "risk-on";
  const moves = assets.map((a) => `${a.sym} ${signed(a.change_pct)}`).join(", ");
  return { since, assets, read, line: `Since the US close (${since}): ${moves === "" ? "no quotes" : moves}: ${read}.` };
}

/** A macro member as the tradfi read sees it. */
export type TradfiMember = { sym: string; state: EntryState; aboveSma50: boolean };

type Group = keyof typeof TRADFI.groups;
const GROUP_WORDS: Record<Group, string> = { bonds: "bonds", credit: "credit", gold: "gold", dollar_sensitive: "dollar-sensitive" };

/** One group's read from its members' trends (TRADFI). */
export function groupRead(members: readonly TradfiMember[]): TradfiRisk["groups"][number]["read"] {
  if (members.length === 0) return "neutral";
  const up = members.filter((m) => m.aboveSma50 && m.state !== "FALLING").length / members.length;
  const down = members.filter((m) => m.state === "FALLING").length / members.length;
  if (up >= TRADFI.supportiveShare) return "supportive";
  if (down >= TRADFI.stressedShare) return "stressed";
  return "neutral";
}

/**
 * The macro book's risk read: its verdict, the credit check (HYG/IEF above its 50-day average) and
 * each group's read from the members present in the universe (`members` by symbol).
 */
export function tradfiRiskOf(macro: RegimeVerdict, creditOk: boolean, members: ReadonlyMap<string, TradfiMember>): TradfiRisk {
  const groups = (Object.keys(TRADFI.groups) as Group[]).map((group) => {
    const present = TRADFI.groups[group].flatMap((sym) => {
      const m = members.get(sym);
      return m ? [m] : [];
    });
    return { group, syms: present.map((m) => m.sym), read: groupRead(present) };
  });
  const credit = creditOk ? "credit OK (HYG/IEF above its 50-day average)" : "credit weak (HYG/IEF below its 50-day average)";
  const reads = groups.map((g) => `${GROUP_WORDS[g.group]} ${g.read}`).join(", ");
  return {
    verdict: macro.verdict,
    stance: STANCE_OF[macro.verdict],
    line: `Macro book ${macro.verdict} (${macro.stance}); ${credit}; ${reads}.`,
    credit_ok: creditOk,
    groups,
  };
}
