// A book's regime verdict, breadth and permission ladder (SCORING.md "Regime verdict per book"),
// with the hysteresis as weights.ts's REGIME doc and regime.ts's header describe it: the raw verdict
// is read on each of the last REGIME.window completed closes; the confirmed verdict starts as the
// first raw one and changes only when REGIME.confirmCloses consecutive raw verdicts agree on a new
// one; the index's side of its SMA200 (equity, +/-1%) or BTC's and ETH's sides of their SMA50
// (crypto, +/-2%) keep the previous close's side inside the band (the first close of the window:
// the plain comparison). `since` is the close that confirmed the verdict (the window's first
// date if it never changed). `pending` is the raw verdict of the latest bar (intraday: today's
// partial bar, its band side carried on from the last completed close) when it differs.
//
// Readings taken where SCORING.md leaves room:
// - b50 / b200 = 100 x (members with C > SMA50 / SMA200) / members, on the bar read (published:
//   the latest bar). index_above_sma50/200: the plain comparison on the latest bar.
// - The equity rules are tried in SCORING.md's order, first match wins; an index above its band
//   with b50 >= 60 and above its SMA50 that misses a NAMES_ON condition (SMA50 > SMA200, a rising
//   SMA200, b200 >= 55) matches none of them: the oracle reads that as SELECTIVE.
// - Macro credit: the ratio HYG close / IEF close above its mean over the last 50 shared closes;
//   when not, the raw verdict of that close is capped at SECTORS_ON (before hysteresis).
// - Sectors for the ladder: the 20 labels of label_etf.csv; green under above_sma50 when the
//   label's ETF closes above its SMA50 on its latest bar; top_by_rs: the 5 labels whose ETF has the
//   highest r63. The crypto book's only sector is Crypto (weights.ts CRYPTO_SECTORS).

import { SectorLabel, type BookCode, type PermissionLadder, type RegimeVerdictCode } from "@board/proto";
import { CRYPTO_SECTORS, LADDER, REGIME, WINDOWS } from "../../src/scoring/weights.js";
import { at, mean } from "./indicators.js";
import { BOOK_INDEX, seriesOf, type Context } from "./score.js";
import type { NameSeries } from "./series.js";

const STRENGTH: Record<RegimeVerdictCode, number> = { RISK_OFF: 0, INDEX_ONLY: 1, SECTORS_ON: 2, SELECTIVE: 3, NAMES_ON: 4 };
type Side = "above" | "below";

export type BookRegime = {
  verdict: RegimeVerdictCode;
  pending: RegimeVerdictCode | null;
  since: string;
  indexSym: string;
  indexAboveSma50: boolean;
  indexAboveSma200: boolean;
  breadth50: number;
  breadth200: number;
  ladder: PermissionLadder;
  /** Macro only: the credit check on the latest bar. */
  creditOk: boolean | null;
  /** The raw verdicts read, oldest first (the latest bar's last), for messages. */
  raw: { date: string; verdict: RegimeVerdictCode }[];
};

function bandedSide(close: number, avg: number, band: number, prev: Side | null): Side {
  if (close > avg * (1 + band)) return "above";
  if (close < avg * (1 - band)) return "below";
  return prev ?? (close >= avg ? "above" : "below");
}

/** A member's bar on `date`; every member of a book trades on its index's dates. */
function barOn(s: NameSeries, date: string): number {
  const t = s.indexOf(date);
  if (t === undefined) throw new Error(`oracle: ${s.sym} has no bar on ${date}`);
  return t;
}

function breadth(members: readonly NameSeries[], date: string, line: "sma50" | "sma200"): number {
  let above = 0;
  for (const m of members) {
    const t = barOn(m, date);
    if (m.c(t) > m.v(m[line], t, line)) above++;
  }
  return (100 * above) / members.length;
}

/** HYG / IEF above its mean over the last 50 closes both have, on `date`. */
function creditOk(ctx: Context, date: string): boolean {
  const hyg = seriesOf(ctx, "HYG");
  const ief = seriesOf(ctx, "IEF");
  const ratios: number[] = [];
  for (let t = 0; t <= barOn(hyg, date); t++) {
    const j = ief.indexOf(at(hyg.dates, t));
    if (j !== undefined) ratios.push(hyg.c(t) / ief.c(j));
  }
  return at(ratios, ratios.length - 1) > mean(ratios.slice(-WINDOWS.sma50));
}

function equityRaw(index: NameSeries, t: number, side: Side, b50: number, b200: number): RegimeVerdictCode {
  if (side === "below") return "RISK_OFF";
  if (b50 < REGIME.indexOnlyBelowB50) return "INDEX_ONLY";
  if (b50 < REGIME.sectorsOnBelowB50) return "SECTORS_ON";
  const C = index.c(t);
  const s50 = index.v(index.sma50, t, "SMA50");
  const s200 = index.v(index.sma200, t, "SMA200");
  if (b50 < REGIME.namesOnMinB50 || C < s50) return "SELECTIVE";
  const rising = s200 > index.v(index.sma200, t - WINDOWS.sma200Slope, "SMA200 20 bars back");
  if (C > s50 && s50 > s200 && rising && b50 >= REGIME.namesOnMinB50 && b200 >= REGIME.namesOnMinB200) return "NAMES_ON";
  return "SELECTIVE";
}

/** Which sectors the ladder opens under a verdict (the crypto book: Crypto). */
function ladderOf(book: BookCode, verdict: RegimeVerdictCode, ctx: Context): PermissionLadder {
  const rung = LADDER[verdict];
  let sectors: SectorLabel[] = [];
  if (rung.sectors !== "none") {
    if (book === "crypto") sectors = [...CRYPTO_SECTORS];
    else if (rung.sectors === "above_sma50") sectors = SectorLabel.options.filter((l) => seriesOf(ctx, ctx.sectorEtfs[l]).aboveSma50());
    else {
      const r63 = (l: SectorLabel) => {
        const s = seriesOf(ctx, ctx.sectorEtfs[l]);
        return s.ret(REGIME.sectorRsWindow, s.last);
      };
      sectors = [...SectorLabel.options].sort((a, b) => r63(b) - r63(a)).slice(0, REGIME.selectiveTopSectors);
    }
  }
  return { index: rung.index, sectors, names: rung.names };
}

export function bookRegime(book: BookCode, members: readonly NameSeries[], ctx: Context): BookRegime {
  const index = seriesOf(ctx, BOOK_INDEX[book]);
  const crypto = book === "crypto";
  const eth = crypto ? seriesOf(ctx, "ETH-USD") : null;
  const band = crypto ? REGIME.cryptoBand : REGIME.band200;
  const lastClosed = index.partial ? index.last - 1 : index.last;
  const first = lastClosed - REGIME.window + 1;

  let idxSide: Side | null = null;
  let ethSide: Side | null = null;
  const rawAt = (t: number): RegimeVerdictCode => {
    const date = at(index.dates, t);
    if (crypto && eth) {
      idxSide = bandedSide(index.c(t), index.v(index.sma50, t, "SMA50"), band, idxSide);
      const te = barOn(eth, date);
      ethSide = bandedSide(eth.c(te), eth.v(eth.sma50, te, "SMA50"), band, ethSide);
      return idxSide === "below" ? "RISK_OFF" : ethSide === "below" ? "INDEX_ONLY" : "NAMES_ON";
    }
    idxSide = bandedSide(index.c(t), index.v(index.sma200, t, "SMA200"), band, idxSide);
    let v = equityRaw(index, t, idxSide, breadth(members, date, "sma50"), breadth(members, date, "sma200"));
    if (book === "macro" && !creditOk(ctx, date) && STRENGTH[v] > STRENGTH.SECTORS_ON) v = "SECTORS_ON";
    return v;
  };

  const raw: { date: string; verdict: RegimeVerdictCode }[] = [];
  for (let t = first; t <= lastClosed; t++) raw.push({ date: at(index.dates, t), verdict: rawAt(t) });
  let confirmed = at(raw, 0).verdict;
  let since = at(raw, 0).date;
  for (let i = REGIME.confirmCloses - 1; i < raw.length; i++) {
    const v = at(raw, i).verdict;
    if (v === confirmed) continue;
    let agree = true;
    for (let j = i - REGIME.confirmCloses + 1; j < i; j++) if (at(raw, j).verdict !== v) agree = false;
    if (agree) {
      confirmed = v;
      since = at(raw, i).date;
    }
  }
  if (index.partial) raw.push({ date: at(index.dates, index.last), verdict: rawAt(index.last) });
  const latest = at(raw, raw.length - 1).verdict;

  const lastDate = at(index.dates, index.last);
  return {
    verdict: confirmed,
    pending: latest === confirmed ? null : latest,
    since,
    indexSym: index.sym,
    indexAboveSma50: index.aboveSma50(),
    indexAboveSma200: index.price > index.v(index.sma200, index.last, "SMA200"),
    breadth50: breadth(members, lastDate, "sma50"),
    breadth200: breadth(members, lastDate, "sma200"),
    ladder: ladderOf(book, confirmed, ctx),
    creditOk: book === "macro" ? creditOk(ctx, lastDate) : null,
    raw,
  };
}
