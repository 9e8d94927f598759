// Oracle against engine, field by field, collecting every disagreement (never stopping at the first).
//
// Tolerance: the engine rounds scores (opp_score, entry_q, hold_q) and breadth to 0.1, prices and
// levels to cents, chg_pct and atr_pct to 0.01, atr to 0.0001, dollar figures and conviction to
// whole numbers. The oracle keeps its value unrounded and accepts a published value within half the
// rounding step plus 1e-9 relative: |oracle - engine| <= step / 2 + 1e-9 |oracle|.
// Ties: an integer percentile must equal the oracle's exactly, unless the oracle's raw input lies
// within 1e-12 (relative) of another member's; then any rank within that near-tie cluster is
// accepted, and the case is counted (rank.ts). Lane order: a position may hold another name only
// when the two ranking keys are within 1e-12 (relative). Everything else (states, labels, flags,
// dates, books, sector sets) must be equal.

import { BOOK_ORDER, STANCE_OF, type BookCode, type Snapshot } from "@board/proto";
import type { BookReading } from "../../src/scoring/board.js";
import { CONVICTION } from "../../src/scoring/weights.js";
import type { OracleBoard } from "./board.js";
import { levelsOf, liquidityOf, type CardRead, type LaneEntry, type Levels } from "./lanes.js";
import { nearlyEqual, type Pct } from "./rank.js";
import type { Reading } from "./score.js";

export type Disagreement = { board: string; book: string; sym: string; field: string; oracle: unknown; engine: unknown };

const MISSING = "(missing)";
const REL = 1e-9;

const fmt = (v: unknown): string => {
  if (v === undefined) return MISSING;
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toPrecision(10).replace(/\.?0+$/, "");
  return JSON.stringify(v);
};

export class Collector {
  readonly list: Disagreement[] = [];
  /** Percentiles accepted only because of a near-tie. */
  tieAccepts = 0;
  /** Lane positions accepted only because of a near-tie of the ranking keys. */
  laneTieAccepts = 0;

  constructor(readonly board: string) {}

  add(book: string, sym: string, field: string, oracle: unknown, engine: unknown): void {
    this.list.push({ board: this.board, book, sym, field, oracle, engine });
  }

  num(book: string, sym: string, field: string, oracle: number, engine: unknown, step: number): void {
    const ok = typeof engine === "number" && Math.abs(oracle - engine) <= step / 2 + REL * Math.abs(oracle);
    if (!ok) this.add(book, sym, field, oracle, engine);
  }

  pct(book: string, sym: string, field: string, oracle: Pct, engine: unknown): void {
    if (typeof engine === "number" && oracle.accept.includes(engine)) {
      if (engine !== oracle.value) this.tieAccepts++;
      return;
    }
    this.add(book, sym, field, oracle.tied ? `${oracle.value} (tie: ${oracle.accept.join("|")})` : oracle.value, engine);
  }

  eq(book: string, sym: string, field: string, oracle: unknown, engine: unknown): void {
    if (JSON.stringify(oracle) !== JSON.stringify(engine)) this.add(book, sym, field, oracle, engine);
  }

  /** Per field: how many, and a few examples; then every disagreement, one line each (capped). */
  report(maxLines = 120): string {
    if (this.list.length === 0) return `${this.board}: no disagreements`;
    const byField = new Map<string, Disagreement[]>();
    for (const d of this.list) byField.set(d.field, [...(byField.get(d.field) ?? []), d]);
    const line = (d: Disagreement) => `${d.book}/${d.sym} ${d.field}: oracle ${fmt(d.oracle)}, engine ${fmt(d.engine)}`;
    const out = [`${this.board}: ${this.list.length} disagreements in ${byField.size} fields`];
    for (const [field, ds] of [...byField].sort((a, b) => b[1].length - a[1].length)) {
      const missing = ds.every((d) => d.engine === undefined);
      out.push(`  ${field}: ${ds.length}${missing ? " (missing from the engine's output)" : ""}; e.g. ${ds.slice(0, 3).map(line).join("; ")}`);
    }
    out.push("  all:");
    for (const d of this.list.slice(0, maxLines)) out.push(`    ${line(d)}`);
    if (this.list.length > maxLines) out.push(`    ... and ${this.list.length - maxLines} more`);
    return out.join("\n");
  }
}

type EngineRecord = Snapshot["board"]["names"][number];
type EngineBook = Snapshot["board"]["books"][BookCode];
type EngineLaneEntry = EngineBook["lanes"]["risk_adjusted"][number];

/** The fields that existed before the per-book readings (opp, state, hold, ...). */
export const RECORD_FIELDS = [
  "price",
  "chg_pct",
  "opp_score",
  "opp_pct",
  "state",
  "prev_state",
  "light",
  "entry_q",
  "hold_q",
  "hold_label",
  "is_leader",
  "growth_score",
  "gap_risk",
  "dollar_volume",
  "adv20_usd",
  "liquidity",
] as const;
/** The fields the per-book reading adds (docs/methodology.md: books, the light). */
export const NEW_RECORD_FIELDS = ["ranked_in", "tt_count", "trigger", "trigger_date", "days_in_state"] as const;

/** One name record, the fields of `fields` only. */
export function compareRecord(c: Collector, r: Reading, e: EngineRecord, fields: readonly string[]): void {
  const book = r.book;
  const sym = r.sym;
  const got = e as unknown as Record<string, unknown>;
  const want = new Set(fields);
  const s = r.s;
  const check: Record<string, () => void> = {
    price: () => c.num(book, sym, "price", s.price, got.price, 0.01),
    chg_pct: () => c.num(book, sym, "chg_pct", s.chgPct, got.chg_pct, 0.01),
    opp_score: () => c.num(book, sym, "opp_score", r.oppScore, got.opp_score, 0.1),
    opp_pct: () => c.pct(book, sym, "opp_pct", r.oppPct, got.opp_pct),
    state: () => c.eq(book, sym, "state", r.state, got.state),
    prev_state: () => c.eq(book, sym, "prev_state", r.prevState, got.prev_state),
    light: () => c.eq(book, sym, "light", r.light, got.light),
    entry_q: () => c.num(book, sym, "entry_q", r.entryQ, got.entry_q, 0.1),
    hold_q: () => c.num(book, sym, "hold_q", r.holdQ, got.hold_q, 0.1),
    hold_label: () => c.eq(book, sym, "hold_label", r.holdLabel, got.hold_label),
    is_leader: () => c.eq(book, sym, "is_leader", r.isLeader, got.is_leader),
    growth_score: () => c.pct(book, sym, "growth_score", r.growth, got.growth_score),
    gap_risk: () => c.pct(book, sym, "gap_risk", r.gapRisk, got.gap_risk),
    dollar_volume: () => c.num(book, sym, "dollar_volume", s.dollarVolume, got.dollar_volume, 1),
    adv20_usd: () => c.num(book, sym, "adv20_usd", s.adv20, got.adv20_usd, 1),
    liquidity: () => c.eq(book, sym, "liquidity", liquidityOf(s.adv20), got.liquidity),
    ranked_in: () => c.eq(book, sym, "ranked_in", r.book, got.ranked_in),
    tt_count: () => c.eq(book, sym, "tt_count", r.tt, got.tt_count),
    trigger: () => c.eq(book, sym, "trigger", r.trigger?.type ?? null, got.trigger),
    trigger_date: () => c.eq(book, sym, "trigger_date", r.trigger?.date ?? null, got.trigger_date),
    days_in_state: () => c.eq(book, sym, "days_in_state", r.daysInState, got.days_in_state),
  };
  for (const f of want) {
    const fn = check[f];
    if (!fn) throw new Error(`oracle: no check for field ${f}`);
    fn();
  }
}

export function compareRecords(c: Collector, o: OracleBoard, snap: Snapshot, fields: readonly string[]): void {
  const names = snap.board.names;
  if (names.length !== o.records.length) c.add("-", "-", "names.length", o.records.length, names.length);
  o.records.forEach((r, i) => {
    const e = names[i];
    if (!e || e.sym !== r.sym) return c.add(r.book, r.sym, "names order", r.sym, e?.sym);
    compareRecord(c, r, e, fields);
  });
}

/** The fields of a book's own reading of a member (the engine's BookReading, unpublished as such). */
export const READING_FIELDS = [
  "opp_score",
  "opp_pct",
  "state",
  "prev_state",
  "light",
  "entry_q",
  "hold_q",
  "is_leader",
  "growth_score",
  "gap_risk",
  "tt_count",
  "trigger",
  "trigger_date",
  "days_in_state",
] as const;

/** Every book's reading of every one of its members (qqq: all 101, not only its 14 home records), rs_pct included. */
export function compareReadings(c: Collector, o: OracleBoard, readings: Readonly<Record<BookCode, readonly BookReading[]>>): void {
  for (const code of BOOK_ORDER) {
    const mine = o.books[code].readings;
    const theirs = readings[code];
    if (theirs.length !== mine.size) c.add(code, "-", "readings.length", mine.size, theirs.length);
    for (const e of theirs) {
      const r = mine.get(e.sym);
      if (!r) {
        c.add(code, e.sym, "reading of a non-member", false, true);
        continue;
      }
      compareRecord(c, r, e as unknown as EngineRecord, READING_FIELDS);
      c.pct(code, e.sym, "rs_pct", r.rsPct, e.rs_pct);
    }
  }
}

function compareLevels(c: Collector, book: string, sym: string, prefix: string, l: Levels, e: Record<string, unknown>): void {
  const win = e.entry_window as { low?: number; high?: number } | null | undefined;
  c.num(book, sym, `${prefix}entry_window.low`, l.entryWindow.low, win?.low, 0.01);
  c.num(book, sym, `${prefix}entry_window.high`, l.entryWindow.high, win?.high, 0.01);
  c.eq(book, sym, `${prefix}entry_basis`, l.entryBasis, e.entry_basis);
  c.num(book, sym, `${prefix}stop`, l.stop, e.stop, 0.01);
  c.eq(book, sym, `${prefix}stop_basis`, l.stopBasis, e.stop_basis);
  const targets = (e.targets as unknown[] | null | undefined) ?? [];
  if (targets.length !== l.targets.length) c.add(book, sym, `${prefix}targets.length`, l.targets.length, targets.length);
  l.targets.forEach((t, k) => {
    const got = targets[k];
    // A lane entry carries prices; a setup's targets are prices too.
    c.num(book, sym, `${prefix}targets[${k}]`, t, got, 0.01);
  });
}

function compareLane(c: Collector, code: BookCode, lane: "risk_adjusted" | "swing", mine: LaneEntry[], theirs: readonly EngineLaneEntry[], o: OracleBoard): void {
  const f = `lanes.${lane}`;
  if (mine.length !== theirs.length) c.add(code, "-", `${f}.length`, mine.length, theirs.length);
  const readings = o.books[code].readings;
  theirs.forEach((e, i) => {
    const m = mine[i];
    if (e.rank !== i + 1) c.add(code, e.sym, `${f}.rank`, i + 1, e.rank);
    if (m && m.r.sym !== e.sym) {
      const other = mine.find((x) => x.r.sym === e.sym);
      if (other && nearlyEqual(other.key, m.key)) c.laneTieAccepts++;
      else c.add(code, e.sym, `${f}[${i + 1}].sym`, m.r.sym, e.sym);
    }
    const r = readings.get(e.sym);
    if (!r) return c.add(code, e.sym, `${f}[${i + 1}] not a member`, false, true);
    const prefix = `${f}.`;
    c.num(code, e.sym, `${prefix}opp_score`, r.oppScore, e.opp_score, 0.1);
    c.num(code, e.sym, `${prefix}entry_q`, r.entryQ, e.entry_q, 0.1);
    c.eq(code, e.sym, `${prefix}state`, r.state, e.state);
    c.eq(code, e.sym, `${prefix}light`, r.light, e.light);
    c.eq(code, e.sym, `${prefix}is_leader`, r.isLeader, e.is_leader);
    c.num(code, e.sym, `${prefix}price`, r.s.price, e.price, 0.01);
    c.num(code, e.sym, `${prefix}atr_pct`, 100 * r.s.atrFrac, e.atr_pct, 0.01);
    if (r.state === "READY" || r.state === "SETUP") compareLevels(c, code, e.sym, prefix, levelsOf(r), e as unknown as Record<string, unknown>);
  });
  // Names the oracle lanes that the engine left out (beyond a length difference already reported).
  for (const m of mine) if (!theirs.some((e) => e.sym === m.r.sym)) c.add(code, m.r.sym, `${f} missing name`, true, false);
}

function compareCard(c: Collector, code: BookCode, where: string, mine: CardRead, e: EngineBook["index_card"] | undefined): void {
  if (!e) return c.add(code, mine.sym, where, "card", undefined);
  const sym = mine.sym;
  c.eq(code, sym, `${where}.sym`, mine.sym, e.sym);
  c.eq(code, sym, `${where}.label`, mine.label, e.label);
  c.num(code, sym, `${where}.score`, mine.r.oppScore, e.score, 0.1);
  c.pct(code, sym, `${where}.pct`, mine.r.oppPct, e.pct);
  c.eq(code, sym, `${where}.light`, mine.r.light, e.light);
  c.eq(code, sym, `${where}.state`, mine.r.state, e.state);
  c.eq(code, sym, `${where}.above_sma50`, mine.aboveSma50, e.above_sma50);
  c.eq(code, sym, `${where}.green`, mine.green, e.green);
  c.eq(code, sym, `${where}.ranked_in`, mine.r.book, (e as Record<string, unknown>).ranked_in);
}

/** Members, breadth, verdict, ladder and cards of every book. */
export function compareBooks(c: Collector, o: OracleBoard, snap: Snapshot): void {
  for (const code of BOOK_ORDER) {
    const b = o.books[code];
    const e = snap.board.books[code];
    if (!e) {
      c.add(code, "-", "book", "present", undefined);
      continue;
    }
    const g = b.regime;
    const er = e.regime;
    c.eq(code, "-", "members", b.members.length, e.members);
    c.eq(code, "-", "regime.index_sym", g.indexSym, er.index_sym);
    c.eq(code, "-", "regime.verdict", g.verdict, er.verdict);
    c.eq(code, "-", "regime.stance", STANCE_OF[g.verdict], er.stance);
    c.eq(code, "-", "regime.pending", g.pending, er.pending);
    c.eq(code, "-", "regime.since", g.since, er.since);
    c.num(code, "-", "regime.breadth_50", g.breadth50, er.breadth_50, 0.1);
    c.num(code, "-", "regime.breadth_200", g.breadth200, er.breadth_200, 0.1);
    c.eq(code, "-", "regime.index_above_sma50", g.indexAboveSma50, er.index_above_sma50);
    c.eq(code, "-", "regime.index_above_sma200", g.indexAboveSma200, er.index_above_sma200);
    c.eq(code, "-", "regime.ladder.index", g.ladder.index, er.ladder.index);
    // The rules give the green sectors no order: compared as sets.
    c.eq(code, "-", "regime.ladder.sectors", [...g.ladder.sectors].sort(), [...er.ladder.sectors].sort());
    c.eq(code, "-", "regime.ladder.names", g.ladder.names, er.ladder.names);
    compareCard(c, code, "index_card", b.cards.index, e.index_card);
    if (e.sector_cards.length !== b.cards.sectors.length) c.add(code, "-", "sector_cards.length", b.cards.sectors.length, e.sector_cards.length);
    b.cards.sectors.forEach((card, i) => compareCard(c, code, `sector_cards[${card.label}]`, card, e.sector_cards[i]));
  }
}

export function compareLanes(c: Collector, o: OracleBoard, snap: Snapshot): void {
  for (const code of BOOK_ORDER) {
    const e = snap.board.books[code];
    if (!e) continue;
    compareLane(c, code, "risk_adjusted", o.books[code].lanes.risk_adjusted, e.lanes.risk_adjusted, o);
    compareLane(c, code, "swing", o.books[code].lanes.swing, e.lanes.swing, o);
  }
}

/** The engine section's setups: permission, refusal, levels and conviction per name. */
export function compareSetups(c: Collector, o: OracleBoard, snap: Snapshot): void {
  const setups = snap.engine?.setups;
  if (!setups) return c.add("-", "-", "engine.setups", "present", undefined);
  o.setups.forEach((m, i) => {
    const e = setups[i] as unknown as Record<string, unknown> | undefined;
    const book = o.records[i]!.book;
    if (!e || e.sym !== m.sym) return c.add(book, m.sym, "setups order", m.sym, e?.sym);
    const f = "setup.";
    c.num(book, m.sym, `${f}atr`, m.atr, e.atr, 0.0001);
    c.num(book, m.sym, `${f}atr_pct`, m.atrPct, e.atr_pct, 0.01);
    c.num(book, m.sym, `${f}chandelier_stop`, m.chandelier, e.chandelier_stop, 0.01);
    c.eq(book, m.sym, `${f}permitted`, m.permitted, e.permitted);
    c.eq(book, m.sym, `${f}refusal`, m.refusal, e.refusal);
    if (m.levels) {
      compareLevels(c, book, m.sym, f, m.levels, e);
      c.num(book, m.sym, `${f}risk_per_share`, m.levels.risk, e.risk_per_share, 0.01);
    } else {
      for (const k of ["entry_window", "entry_basis", "stop", "stop_basis", "risk_per_share", "targets"])
        if (e[k] !== null) c.add(book, m.sym, `${f}${k} (no permitted setup: null)`, null, e[k]);
    }
    c.num(book, m.sym, `${f}conviction`, m.conviction, e.conviction, 1);
    const label = CONVICTION.labels.find((l) => Math.round(m.conviction) >= l.min)?.label;
    c.eq(book, m.sym, `${f}conviction_label`, label, e.conviction_label);
  });
}
