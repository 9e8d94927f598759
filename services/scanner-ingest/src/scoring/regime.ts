// The regime verdict of a book and its permission ladder (SCORING.md), without hysteresis for now:
// each verdict reads the current bar only, `since` is the scan's day and `pending` is null.

import { STANCE_OF, type PermissionLadder, type RegimeVerdict, type RegimeVerdictCode, type SectorLabel } from "@board/proto";
import { CRYPTO_SECOND, type BookDef } from "./books.js";
import type { Technicals } from "./features.js";
import { REGIME } from "./weights.js";

/** A sector as the ladder sees it: its ETF above its 50-day average, and its 63-day return. */
export type SectorRead = { label: SectorLabel; aboveSma50: boolean; r63: number };

const STRENGTH: Record<RegimeVerdictCode, number> = {
  RISK_OFF: 0,
  INDEX_ONLY: 1,
  SECTORS_ON: 2,
  SELECTIVE: 3,
  NAMES_ON: 4,
};

/** The weaker of two verdicts. */
export function capVerdict(v: RegimeVerdictCode, cap: RegimeVerdictCode): RegimeVerdictCode {
  return STRENGTH[v] <= STRENGTH[cap] ? v : cap;
}

/**
 * Equity books. `creditOk` false caps the verdict at SECTORS_ON (macro's HYG/IEF check); null means
 * the book has no credit check.
 */
export function equityVerdict(index: Technicals, breadth50: number, breadth200: number, creditOk: boolean | null): RegimeVerdictCode {
  let v: RegimeVerdictCode;
  if (index.close < index.sma200) v = "RISK_OFF";
  else if (breadth50 < REGIME.indexOnlyBelowB50) v = "INDEX_ONLY";
  else if (breadth50 < REGIME.sectorsOnBelowB50) v = "SECTORS_ON";
  else if (
    index.close > index.sma50 &&
    index.sma50 > index.sma200 &&
    index.sma200 > index.sma200Past &&
    breadth50 >= REGIME.namesOnMinB50 &&
    breadth200 >= REGIME.namesOnMinB200
  )
    v = "NAMES_ON";
  else v = "SELECTIVE";
  return creditOk === false ? capVerdict(v, "SECTORS_ON") : v;
}

/** Crypto book: BTC below its 50-day -> RISK_OFF; BTC above, ETH below -> INDEX_ONLY; both above -> NAMES_ON. */
export function cryptoVerdict(btc: Technicals, eth: Technicals): RegimeVerdictCode {
  if (btc.close < btc.sma50) return "RISK_OFF";
  return eth.close < eth.sma50 ? "INDEX_ONLY" : "NAMES_ON";
}

/** How far down the ranking the green extends under a verdict. */
export function ladderOf(verdict: RegimeVerdictCode, rules: BookDef["rules"], sectors: readonly SectorRead[]): PermissionLadder {
  const above = sectors.filter((s) => s.aboveSma50).map((s) => s.label);
  switch (verdict) {
    case "RISK_OFF":
      return { index: false, sectors: [], names: "none" };
    case "INDEX_ONLY":
      return { index: true, sectors: [], names: "none" };
    case "SECTORS_ON":
      return { index: true, sectors: above, names: "none" };
    case "SELECTIVE": {
      const top = [...sectors].sort((a, b) => b.r63 - a.r63).slice(0, REGIME.selectiveTopSectors);
      return { index: true, sectors: top.map((s) => s.label), names: "leaders_in_top_sectors" };
    }
    case "NAMES_ON":
      return { index: true, sectors: rules === "crypto" ? ["Crypto"] : above, names: "green_sectors" };
  }
}

const PHRASE: Record<RegimeVerdictCode, string> = {
  NAMES_ON: "risk on, names in green sectors",
  SELECTIVE: "be selective, leaders in the top sectors only",
  SECTORS_ON: "be selective, sector ETFs only",
  INDEX_ONLY: "stand down on names, the index only",
  RISK_OFF: "stand down",
};

const side = (t: Technicals, avg: number) => (t.close >= avg ? "above" : "below");

export type RegimeInput = {
  book: BookDef;
  asof: string;
  index: Technicals;
  /** Crypto: ETH's technicals. */
  second: Technicals | null;
  breadth50: number;
  breadth200: number;
  creditOk: boolean | null;
  sectors: readonly SectorRead[];
};

export function regimeVerdict(input: RegimeInput): RegimeVerdict {
  const { book, index, second } = input;
  let verdict: RegimeVerdictCode;
  let line: string;
  if (book.rules === "crypto") {
    if (second === null) throw new Error(`regime: the ${book.code} book needs its second asset`);
    verdict = cryptoVerdict(index, second);
    line =
      `${book.index} ${side(index, index.sma50)} its 50-day average, ` +
      `${CRYPTO_SECOND} ${side(second, second.sma50)} its 50-day average: ${PHRASE[verdict]}.`;
  } else {
    verdict = equityVerdict(index, input.breadth50, input.breadth200, input.creditOk);
    const capped = verdict !== equityVerdict(index, input.breadth50, input.breadth200, null);
    const credit = capped ? " (credit weak: HYG/IEF below its 50-day average)" : "";
    line =
      `${book.index} ${side(index, index.sma200)} its 200-day average, ` +
      `${Math.round(input.breadth50)}% of members above their 50-day: ${PHRASE[verdict]}${credit}.`;
  }
  return {
    verdict,
    stance: STANCE_OF[verdict],
    line,
    since: input.asof,
    pending: null,
    index_sym: book.index,
    index_above_sma50: index.close > index.sma50,
    index_above_sma200: index.close > index.sma200,
    breadth_50: Math.round(input.breadth50 * 10) / 10,
    breadth_200: Math.round(input.breadth200 * 10) / 10,
    ladder: ladderOf(verdict, book.rules, input.sectors),
  };
}
