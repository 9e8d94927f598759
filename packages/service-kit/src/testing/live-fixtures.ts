// Snapshots with the live tier's engine section, for the tests of the board and the stack. The scanner's own tests
// use the real engine; here the section is made from the fixture's names the way the scanner
// describes it (levels from an ATR of 2% of the price, permission from each book's ladder), and
// the books' lanes are filled from the permitted names with the same levels, so a lane and its
// setup agree as they do in a real snapshot.

import {
  BOOK_ORDER,
  Snapshot,
  type BookCode,
  type ConvictionLabel,
  type EngineRules,
  type EngineSetup,
  type LaneEntry,
  type NameRecord,
  type PermissionLadder,
  type SetupRefusal,
} from "@board/proto";
import { fixtureSnapshot } from "./fixtures.js";

/** Engine parameters as the scanner publishes them (a copy: fixtures never import the scanner). */
export const FIXTURE_ENGINE_RULES: EngineRules = {
  atr_bars: 14,
  stop: { atr_multiple: 1.5, pullback_lookback_bars: 10, pullback_buffer_atr: 0.1, pullback_min_risk_atr: 0.5, pullback_max_risk_atr: 3 },
  chandelier: { high_bars: 22, atr_bars: 22, atr_multiple: 3 },
  targets_r: [2, 3],
  entry_window: { pullback_band_atr: { below: 0.5, above: 1.5 }, pivot_bars: 20, pivot_above_atr: 1 },
  state_history_bars: 64,
  lanes: {
    risk_adjusted: { size: 10, states: ["READY", "SETUP"], light: null, max_gap_risk: 80, min_liquidity: "C", rank_by: "opp_score_per_atr_pct" },
    swing: { size: 10, states: ["READY"], light: "firing", max_gap_risk: null, min_liquidity: "C", rank_by: "entry_q" },
  },
  regime: {
    ladder: [
      { verdict: "NAMES_ON", stance: "risk-on", index: true, sectors: "above_sma50", names: "green_sectors" },
      { verdict: "SELECTIVE", stance: "be-selective", index: true, sectors: "top_by_rs", names: "leaders_in_top_sectors" },
      { verdict: "SECTORS_ON", stance: "be-selective", index: true, sectors: "above_sma50", names: "none" },
      { verdict: "INDEX_ONLY", stance: "stand-down", index: true, sectors: "none", names: "none" },
      { verdict: "RISK_OFF", stance: "stand-down", index: false, sectors: "none", names: "none" },
    ],
    sector_sma_bars: 50,
    top_sectors: 5,
    sector_rs_bars: 63,
    confirm_closes: 2,
    equity: {
      index_sma_bars: 200,
      index_band_pct: 1,
      index_only_below_breadth_50: 40,
      sectors_on_below_breadth_50: 50,
      names_on_min_breadth_50: 60,
      names_on_min_breadth_200: 55,
    },
    crypto: { sma_bars: 50, band_pct: 2, sectors: ["Crypto"] },
  },
  hold: {
    labels: [
      { label: "STRONG", min: 80 },
      { label: "HOLD", min: 60 },
      { label: "WEAKENING", min: 40 },
      { label: "TRIM", min: 20 },
      { label: "EXIT", min: 0 },
    ],
  },
  conviction: {
    labels: [
      { label: "HIGH", min: 70 },
      { label: "MEDIUM", min: 50 },
      { label: "LOW", min: 30 },
      { label: "NONE", min: 0 },
    ],
    unpermitted_max: 49,
  },
  cadence: { refresh_minutes: 5, morning_lead_minutes: 90, timezone: "America/New_York", crypto: "us_weekdays" },
};

const cents = (x: number) => Math.max(0.01, Math.round(x * 100) / 100);

function permits(ladder: PermissionLadder, r: NameRecord): boolean {
  if (ladder.names === "none") return false;
  if (!ladder.sectors.includes(r.sector as (typeof ladder.sectors)[number])) return false;
  return ladder.names === "green_sectors" || r.is_leader;
}

function engineSetup(r: NameRecord, permitted: BookCode[], i: number, rules: EngineRules): EngineSetup {
  const atr = r.price * 0.02;
  const pullback = r.state === "READY" && i % 2 === 0;
  const stop = pullback ? r.price - atr : r.price - rules.stop.atr_multiple * atr;
  const risk = r.price - stop;
  const raw = Math.round((r.opp_score + r.entry_q) / 2);
  const conviction = permitted.length > 0 ? raw : Math.min(raw, rules.conviction.unpermitted_max);
  const label: ConvictionLabel = rules.conviction.labels.find((l) => conviction >= l.min)!.label;
  // As the scanner: only a permitted long setup carries levels; others say why not.
  const refusal: SetupRefusal | null =
    r.state === "FALLING"
      ? "state_falling"
      : r.state === "CHASE"
        ? "state_chase"
        : r.state === "WAIT"
          ? "state_wait"
          : permitted.length === 0
            ? "not_permitted_by_regime"
            : r.hold_label === "EXIT"
              ? "hold_exit"
              : null;
  const setup = refusal === null;
  // A window that holds the price for even rows, above it (a pivot not yet cleared) for odd ones.
  const window = i % 2 === 0 ? { low: cents(Math.max(stop, r.price - 0.5 * atr)), high: cents(r.price + 0.5 * atr) } : { low: cents(r.price + 0.2 * atr), high: cents(r.price + 1.2 * atr) };
  return {
    sym: r.sym,
    atr: Math.round(atr * 10_000) / 10_000,
    atr_pct: 2,
    entry_window: setup ? window : null,
    entry_basis: setup ? (r.state === "SETUP" ? "setup_pivot" : pullback ? "pullback_band" : "breakout_pivot") : null,
    stop: setup ? cents(stop) : null,
    stop_basis: setup ? (pullback ? "pullback_low" : "atr") : null,
    chandelier_stop: cents(r.price - 3 * atr),
    risk_per_share: setup ? Math.round(risk * 100) / 100 : null,
    targets: setup ? rules.targets_r.map((m) => cents(r.price + m * risk)) : null,
    conviction,
    conviction_label: label,
    permitted,
    refusal,
  };
}

function laneEntry(r: NameRecord, e: EngineSetup, rank: number): LaneEntry {
  return {
    sym: r.sym,
    rank,
    opp_score: r.opp_score,
    entry_q: r.entry_q,
    state: r.state,
    light: r.light,
    is_leader: r.is_leader,
    price: r.price,
    atr_pct: e.atr_pct,
    entry_window: e.entry_window!,
    entry_basis: e.entry_basis!,
    stop: e.stop!,
    stop_basis: e.stop_basis!,
    targets: [e.targets![0]!, e.targets![1]!],
  };
}

/** The fixture snapshot of `opts`, with lanes filled from its permitted names and an engine section. */
export function liveSnapshot(opts: Parameters<typeof fixtureSnapshot>[0], rules: EngineRules = FIXTURE_ENGINE_RULES): Snapshot {
  const s = fixtureSnapshot(opts);
  const names = s.board.names;
  const setups = names.map((r, i) =>
    engineSetup(
      r,
      r.bk.filter((code) => permits(s.board.books[code]!.regime.ladder, r)),
      i,
      rules,
    ),
  );
  const bySym = new Map(setups.map((e) => [e.sym, e]));
  const books = { ...s.board.books };
  for (const code of BOOK_ORDER) {
    const permitted = names.filter((r) => bySym.get(r.sym)!.permitted.includes(code) && bySym.get(r.sym)!.refusal === null);
    const rank = (rs: NameRecord[], key: (r: NameRecord) => number) =>
      rs
        .sort((a, b) => key(b) - key(a) || (a.sym < b.sym ? -1 : 1))
        .slice(0, 10)
        .map((r, k) => laneEntry(r, bySym.get(r.sym)!, k + 1));
    books[code] = {
      ...books[code]!,
      lanes: {
        risk_adjusted: rank(permitted.filter((r) => r.state === "READY" || r.state === "SETUP"), (r) => r.opp_score),
        swing: rank(permitted.filter((r) => r.state === "READY" && r.light === "firing"), (r) => r.entry_q),
      },
    };
  }
  return Snapshot.parse({ ...s, board: { ...s.board, books }, engine: { rules, setups } });
}
