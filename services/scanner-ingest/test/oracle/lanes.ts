// Permission, levels, lanes, cards and setups (SCORING.md "Permission ladder", "Lanes and cards";
// docs/methodology.md: books; entry windows, stops and targets; docs/decisions.md for conviction).
//
// Readings taken where the documents leave room:
// - A name is permitted in a book when the ladder opens its rung: the book's index under
//   ladder.index; a sector ETF (the label_etf.csv ETF of a label) whose label is green; under
//   green_sectors any member whose label is green; under leaders_in_top_sectors a member that is
//   a leader in that book and whose label is green. An "Index"-labelled member other than the
//   book's index has no label: it reads its own SMA50 (the methodology's convention for is_leader) under
//   green_sectors and is never a leader "in a top sector".
// - Both lanes take permitted long setups only (methodology: entry windows): READY/SETUP (swing: READY and firing),
//   liquidity C or better, hold_label not EXIT; the risk-adjusted lane also gap risk <= 80. Ranked
//   by unrounded opp_score / ATR% and unrounded entry_q, highest first, top 10.
// - The entry window uses the reading's own trigger (per book); the stop and targets are the last
//   bar's (unchanged by the book).

import type { BookCode, EntryBasis, PermissionLadder, SectorLabel, StopBasis } from "@board/proto";
import { BOOK_ORDER, SectorLabel as SectorLabels } from "@board/proto";
import { CONVICTION, LANES, LIQUIDITY, SETUP, STATE } from "../../src/scoring/weights.js";
import type { BookRegime } from "./regime.js";
import { BOOK_INDEX, published, seriesOf, type Context, type Reading } from "./score.js";

export type Levels = {
  entryWindow: { low: number; high: number };
  entryBasis: EntryBasis;
  stop: number;
  stopBasis: StopBasis;
  risk: number;
  targets: number[];
};

/** The structural stop of the last bar (methodology: entry windows). */
export function structuralStop(r: Reading): { stop: number; basis: StopBasis } {
  const s = r.s;
  const atr = s.atrLast;
  const C = s.price;
  if (s.pullback(s.last)) {
    const pb = s.pullbackLow - SETUP.pullbackBufferAtr * atr;
    const risk = C - pb;
    if (risk >= SETUP.pullbackMinRiskAtr * atr && risk <= SETUP.pullbackMaxRiskAtr * atr) return { stop: pb, basis: "pullback_low" };
  }
  return { stop: C - SETUP.stopAtr * atr, basis: "atr" };
}

/** Entry window, stop and targets of a READY or SETUP reading (methodology: entry windows). */
export function levelsOf(r: Reading): Levels {
  const s = r.s;
  const band = (t: number) => {
    const ema = s.v(s.ema21, t, "EMA21");
    const atr = s.v(s.atr, t, "ATR");
    return { low: ema + STATE.pullbackLowAtr * atr, high: ema + STATE.pullbackHighAtr * atr };
  };
  const pivotWindow = (t: number) => {
    const pivot = s.pivot(t);
    return { low: pivot, high: pivot + SETUP.pivotAboveAtr * s.v(s.atr, t, "ATR") };
  };
  let win: { low: number; high: number };
  let entryBasis: EntryBasis;
  if (r.state === "READY") {
    if (r.trigger?.type === "breakout") [win, entryBasis] = [pivotWindow(r.trigger.t), "breakout_pivot"];
    else [win, entryBasis] = [band(r.trigger?.t ?? s.last), "pullback_band"];
  } else if (r.state === "SETUP") [win, entryBasis] = [pivotWindow(s.last), "setup_pivot"];
  else throw new Error(`oracle: ${r.sym} is ${r.state}: no levels`);
  const { stop, basis } = structuralStop(r);
  const risk = s.price - stop;
  return {
    entryWindow: { low: Math.max(win.low, stop), high: win.high },
    entryBasis,
    stop,
    stopBasis: basis,
    risk,
    targets: SETUP.targetsR.map((k) => s.price + k * risk),
  };
}

/** Whether the book's ladder lets the reading's name be bought. */
export function permittedIn(book: BookCode, r: Reading, ladder: PermissionLadder, ctx: Context): boolean {
  const e = r.s.entry;
  if (ladder.index && r.sym === BOOK_INDEX[book]) return true;
  const green = new Set<string>(ladder.sectors);
  if (ladder.sectors.some((l) => ctx.sectorEtfs[l] === r.sym)) return true;
  const labelGreen = e.sector === "Index" ? r.s.aboveSma50() : green.has(e.sector);
  if (ladder.names === "green_sectors") return labelGreen;
  if (ladder.names === "leaders_in_top_sectors") return e.sector !== "Index" && green.has(e.sector) && r.isLeader;
  return false;
}

const LIQUID = new Set(["A", "B", "C"]);

/** Liquidity tier by adv20_usd: A >= 500M, B >= 100M, C >= 20M, D below. */
export function liquidityOf(adv20: number): "A" | "B" | "C" | "D" {
  return LIQUIDITY.find((x) => adv20 >= x.min)?.tier ?? "D";
}

/** A permitted long setup in this book (methodology: entry windows). */
export function permittedLongSetup(book: BookCode, r: Reading, regime: BookRegime, ctx: Context): boolean {
  return (
    (r.state === "READY" || r.state === "SETUP") &&
    permittedIn(book, r, regime.ladder, ctx) &&
    LIQUID.has(liquidityOf(r.s.adv20)) &&
    r.holdLabel !== "EXIT"
  );
}

export type LaneEntry = { r: Reading; key: number; levels: Levels };

/** The book's two lanes, each ranked highest key first, top LANES.size. */
export function lanesOf(book: BookCode, readings: readonly Reading[], regime: BookRegime, ctx: Context): { risk_adjusted: LaneEntry[]; swing: LaneEntry[] } {
  const setups = readings.filter((r) => permittedLongSetup(book, r, regime, ctx));
  const rank = (xs: LaneEntry[]) => xs.sort((a, b) => b.key - a.key).slice(0, LANES.size);
  const ra = setups
    .filter((r) => r.gapRisk.value <= LANES.riskAdjusted.maxGapRisk)
    .map((r) => ({ r, key: r.oppScore / (100 * r.s.atrFrac), levels: levelsOf(r) }));
  const swing = setups.filter((r) => r.state === "READY" && r.light === "firing").map((r) => ({ r, key: r.entryQ, levels: levelsOf(r) }));
  return { risk_adjusted: rank(ra), swing: rank(swing) };
}

export type CardRead = { sym: string; label: SectorLabel | "Index"; r: Reading; aboveSma50: boolean; green: boolean };

/** Index card and the 20 sector cards of a book (methodology: the book's reading for a member, else macro's). */
export function cardsOf(
  book: BookCode,
  regime: BookRegime,
  readingIn: (book: BookCode, sym: string) => Reading | undefined,
  ctx: Context,
): { index: CardRead; sectors: CardRead[] } {
  const card = (sym: string, label: SectorLabel | "Index", green: boolean): CardRead => {
    const r = readingIn(book, sym) ?? readingIn("macro", sym);
    if (!r) throw new Error(`oracle: no reading for card ${sym}`);
    return { sym, label, r, aboveSma50: seriesOf(ctx, sym).aboveSma50(), green };
  };
  return {
    index: card(BOOK_INDEX[book], "Index", regime.ladder.index),
    sectors: SectorLabels.options.map((l) => card(ctx.sectorEtfs[l], l, regime.ladder.sectors.includes(l))),
  };
}

export type SetupRead = {
  sym: string;
  atr: number;
  atrPct: number;
  chandelier: number;
  permitted: BookCode[];
  refusal: "state_falling" | "state_chase" | "state_wait" | "not_permitted_by_regime" | "illiquid" | "hold_exit" | null;
  levels: Levels | null;
  /** Unrounded, after the cap. */
  conviction: number;
};

/**
 * Conviction (docs/decisions.md, weights.ts CONVICTION): 100 x (0.35 opp + 0.2 entry_q + 0.15 hold_q
 * + 0.2 state value + 0.1 leader), from the scores as published (0.1) taken as fractions, capped at 49
 * when no book permits the name.
 */
export function convictionOf(r: Reading, permitted: boolean): number {
  const w = CONVICTION.weights;
  const raw =
    100 *
    ((w.opportunity * published(r.oppScore)) / 100 +
      (w.entry * published(r.entryQ)) / 100 +
      (w.hold * published(r.holdQ)) / 100 +
      w.state * CONVICTION.state[r.state] +
      w.leader * (r.isLeader ? 1 : 0));
  return permitted ? raw : Math.min(raw, CONVICTION.unpermittedMax);
}

/** The engine section's setup of a name, from its home reading and every book's permission. */
export function setupOf(home: Reading, books: readonly { book: BookCode; r: Reading; regime: BookRegime }[], ctx: Context): SetupRead {
  const s = home.s;
  const permitted = BOOK_ORDER.filter((b) => books.some((x) => x.book === b && permittedIn(b, x.r, x.regime.ladder, ctx)));
  let refusal: SetupRead["refusal"] = null;
  if (home.state === "FALLING") refusal = "state_falling";
  else if (home.state === "CHASE") refusal = "state_chase";
  else if (home.state === "WAIT") refusal = "state_wait";
  else if (permitted.length === 0) refusal = "not_permitted_by_regime";
  else if (liquidityOf(s.adv20) === "D") refusal = "illiquid";
  else if (home.holdLabel === "EXIT") refusal = "hold_exit";
  return {
    sym: home.sym,
    atr: s.atrLast,
    atrPct: 100 * s.atrFrac,
    chandelier: s.chandelier,
    permitted,
    refusal,
    levels: refusal === null ? levelsOf(home) : null,
    conviction: convictionOf(home, permitted.length > 0),
  };
}

