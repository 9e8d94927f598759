import {
  BoardState,
  LiveFeedView,
  LiveRulesView,
  LiveSetupView,
  NameDirectoryView,
  Snapshot,
  SymbolDirectory,
  VIEW_SCHEMAS,
  type NameSetup,
  type ViewName,
} from "@board/proto";
import { BusError } from "@board/service-kit";
import { describe, expect, it } from "vitest";
import { FIXTURE_ENGINE_RULES, liveSnapshot } from "@board/service-kit/testing";
import { liveLater, liveToday } from "./live-days.js";
import { publicationOf, readerOf, snapshot as withoutEngine } from "./support.js";

const board = liveToday.board;
const engine = liveToday.engine!;
const read = readerOf(publicationOf(liveToday));
const record = (sym: string) => board.names.find((r) => r.sym === sym)!;
const setupOf = (sym: string) => engine.setups.find((e) => e.sym === sym)!;
const LIVE: ViewName[] = ["live-feed", "live-rules", "live-setup"];

/** A NameSetup is its name record's fields joined with its engine setup, its lanes and its books. */
function expectSetup(s: NameSetup) {
  const r = record(s.sym);
  const e = setupOf(s.sym);
  const { prev_state: _p, growth_score: _g, dollar_volume: _d, adv20_usd: _a, ...fromRecord } = r;
  expect(s).toMatchObject(fromRecord);
  expect(s).toMatchObject({
    atr: e.atr,
    atr_pct: e.atr_pct,
    entry_window: e.entry_window,
    entry_basis: e.entry_basis,
    stop: e.stop,
    stop_basis: e.stop_basis,
    chandelier_stop: e.chandelier_stop,
    risk_per_share: e.risk_per_share,
    conviction: e.conviction,
    conviction_label: e.conviction_label,
    permitted: e.refusal === null,
    refusal: e.refusal,
  });
  // Only a permitted long setup carries levels; the window is the trigger's, so the price may be outside it.
  if (e.targets === null) {
    expect(s.targets).toBeNull();
    expect(s.entry_window).toBeNull();
    expect(s.in_entry_window).toBe(false);
  } else {
    expect(s.targets).toEqual([
      { r: 2, price: e.targets[0] },
      { r: 3, price: e.targets[1] },
    ]);
    expect(s.in_entry_window).toBe(s.price >= s.entry_window!.low && s.price <= s.entry_window!.high);
  }
  expect(s.books).toEqual(
    r.bk.map((book) => ({ book, verdict: board.books[book]!.regime.verdict, stance: board.books[book]!.regime.stance, permitted: e.permitted.includes(book) })),
  );
  const places = board.book_order.flatMap((book) =>
    (["risk_adjusted", "swing"] as const).flatMap((lane) => board.books[book]!.lanes[lane].filter((x) => x.sym === s.sym).map((x) => ({ book, lane, rank: x.rank }))),
  );
  expect(s.lanes).toEqual(places);
}

describe("live views", () => {
  it("each starts with the board's head, ends with disclaimer then freshness, and fits its schema", () => {
    for (const view of LIVE) {
      const { body, meta } = read.json(view);
      VIEW_SCHEMAS[view].parse(body);
      const keys = Object.keys(body);
      expect(keys.slice(0, 4), view).toEqual(["product", "asof_daily", "computed_at", "intraday"]);
      expect(keys.slice(-2), view).toEqual(["disclaimer", "freshness"]);
      expect(body.computed_at).toBe(board.computed_at);
      expect(meta.etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
    }
    const state = BoardState.parse(read.json("state").body);
    for (const view of LIVE) expect(state.views[view], view).toMatch(/^[0-9a-f]{16,64}$/);
  });

  it("feed: every book's verdict line, ladder and both lanes with the engine's levels and conviction", () => {
    const feed = LiveFeedView.parse(read.json("live-feed").body);
    expect(Object.keys(feed.books)).toEqual(board.book_order);
    let entries = 0;
    for (const code of board.book_order) {
      const b = board.books[code]!;
      expect(feed.books[code]).toMatchObject({ title: b.title, regime: { verdict: b.regime.verdict, stance: b.regime.stance, line: b.regime.line }, ladder: b.regime.ladder });
      for (const lane of ["risk_adjusted", "swing"] as const) {
        const live = feed.books[code]![lane];
        expect(live.map((x) => [x.sym, x.rank])).toEqual(b.lanes[lane].map((x) => [x.sym, x.rank]));
        for (const [k, x] of live.entries()) {
          const e = setupOf(x.sym);
          const buy = b.lanes[lane][k]!;
          // The same levels the buy list shows, with the stop's basis, the risk and conviction added.
          expect(x).toMatchObject({ price: buy.price, stop: buy.stop, entry_window: buy.entry_window, atr_pct: buy.atr_pct, state: buy.state, light: buy.light });
          expect(x.targets.map((t) => t.price)).toEqual(buy.targets);
          expect(x).toMatchObject({ stop_basis: e.stop_basis, risk_per_share: e.risk_per_share, conviction: e.conviction, conviction_label: e.conviction_label });
          entries++;
        }
      }
    }
    expect(entries).toBeGreaterThan(10);
  });

  it("feed: the candidates are every laned name once, with its full setup, ranked by conviction then opportunity", () => {
    const feed = LiveFeedView.parse(read.json("live-feed").body);
    const laned = new Set(board.book_order.flatMap((code) => [...board.books[code]!.lanes.risk_adjusted, ...board.books[code]!.lanes.swing].map((x) => x.sym)));
    expect(new Set(feed.candidates.map((c) => c.sym))).toEqual(laned);
    expect(feed.candidates).toHaveLength(laned.size);
    expect(feed.candidates.map((c) => c.rank)).toEqual(feed.candidates.map((_, i) => i + 1));
    for (const [i, c] of feed.candidates.entries()) {
      const { rank: _, ...setup } = c;
      expectSetup(setup);
      expect(c.lanes.length).toBeGreaterThan(0);
      expect(c.permitted).toBe(true);
      const next = feed.candidates[i + 1];
      if (next) expect(c.conviction > next.conviction || (c.conviction === next.conviction && c.opp_score >= next.opp_score)).toBe(true);
    }
    // A swing name is also in the risk-adjusted lane: one candidate, both places.
    expect(feed.candidates.some((c) => c.lanes.length > 1)).toBe(true);
  });

  it("rules: the engine's parameters as published, and prose whose numbers come from them", () => {
    const rules = LiveRulesView.parse(read.json("live-rules").body);
    expect(rules.engine).toEqual(FIXTURE_ENGINE_RULES);
    const text = rules.rules.map((r) => r.text).join("\n");
    for (const phrase of ["every 5 minutes", "90 minutes before each open", "1.5 ATR under the price", "2R and 3R", "last 10 bars", "NAMES_ON (risk-on)", "RISK_OFF (stand-down): nothing is permitted", "INDEX_ONLY (stand-down): the book's index, no single names", "HIGH from 70", "EXIT below 20", "at most 49", "up to 10 permitted READY names, with the light firing"])
      expect(text).toContain(phrase);
    expect(new Set(rules.rules.map((r) => r.topic))).toEqual(new Set(["cadence", "regime", "ladder", "lanes", "trigger", "entry", "stop", "targets", "hold", "conviction", "candidates"]));
    // Other parameters, other words: nothing in the prose is typed by hand.
    const changed = { ...FIXTURE_ENGINE_RULES, stop: { ...FIXTURE_ENGINE_RULES.stop, atr_multiple: 2.25 }, targets_r: [1.5, 2.5, 4], cadence: { ...FIXTURE_ENGINE_RULES.cadence, refresh_minutes: 7 } };
    const other = readerOf(publicationOf(liveSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 5, names: 40 }, changed)));
    const otherText = LiveRulesView.parse(other.json("live-rules").body).rules.map((r) => r.text).join("\n");
    for (const phrase of ["every 7 minutes", "2.25 ATR under the price", "1.5R, 2.5R and 4R"]) expect(otherText).toContain(phrase);
    const withTargets = LiveSetupView.parse(other.json("live-setup").body).names.filter((n) => n.targets !== null);
    expect(withTargets.length).toBeGreaterThan(0);
    for (const setup of withTargets) expect(setup.targets!.map((t) => t.r)).toEqual([1.5, 2.5, 4]);
  });

  it("setup without sym: every name's setup, in the board's order", () => {
    const v = LiveSetupView.parse(read.json("live-setup").body);
    expect(v.names.map((s) => s.sym)).toEqual(board.names.map((r) => r.sym));
    expect(v.unknown).toEqual([]);
    for (const s of v.names) expectSetup(s);
    expect(new Set(v.names.map((s) => s.stop_basis))).toEqual(new Set(["atr", "pullback_low", null]));
    // Only permitted long setups carry levels; every other name says why not.
    for (const s of v.names) expect(s.permitted).toBe(s.refusal === null && s.targets !== null);
    expect(v.names.some((s) => s.permitted && !s.in_entry_window)).toBe(true);
    expect(v.names.filter((s) => s.state === "FALLING").every((s) => s.targets === null && s.refusal === "state_falling")).toBe(true);
  });

  it("setup with sym: the batch in request order, once each, unknown symbols listed; the directory when none is known", () => {
    const v = LiveSetupView.parse(read.json("live-setup", { sym: "TC0,btc-usd,NOPE,TC0,TD1" }).body);
    expect(v.names.map((s) => s.sym)).toEqual(["TC0", "BTC-USD", "TD1"]);
    expect(v.unknown).toEqual(["NOPE"]);
    const all = LiveSetupView.parse(read.json("live-setup").body);
    expect(v.names).toEqual(["TC0", "BTC-USD", "TD1"].map((s) => all.names.find((x) => x.sym === s)));
    const dir = NameDirectoryView.parse(read.json("live-setup", { sym: "NOPE,ZZZ" }).body);
    const { unknown, ...symbols } = dir;
    expect(unknown).toEqual(["NOPE", "ZZZ"]);
    expect(symbols).toEqual(SymbolDirectory.parse(read.json("symbols").body));
    expect(() => read.raw("live-setup", { sym: Array.from({ length: 11 }, (_, i) => `S${i}`).join(",") })).toThrow(BusError);
    expect(read.raw("live-setup", { sym: "TC0" }).meta.etag).not.toBe(read.raw("live-setup", { sym: "TD0" }).meta.etag);
  });

  it("is refreshed with each publish: the next board's feed, rules and setups differ", () => {
    const later = readerOf(publicationOf(liveLater));
    for (const view of LIVE) {
      expect(later.raw(view).meta.etag, view).not.toBe(read.raw(view).meta.etag);
      expect(later.json(view).body.computed_at).toBe(liveLater.board.computed_at);
    }
    const feed = LiveFeedView.parse(later.json("live-feed").body);
    expect(feed.candidates.map((c) => c.price)).not.toEqual(LiveFeedView.parse(read.json("live-feed").body).candidates.map((c) => c.price));
  });
});

describe("without the engine section", () => {
  it("the live views are absent (501 not_implemented) and every other view is served", () => {
    const old = readerOf(publicationOf(withoutEngine));
    for (const view of LIVE) expect(() => old.raw(view), view).toThrow(expect.objectContaining({ status: 501, code: "not_implemented" }));
    expect(old.raw("regime").meta.status).toBe(200);
    expect(BoardState.parse(old.json("state").body).views["live-feed"]).toBeUndefined();
  });

  it("the full board and the other paid views do not carry it", () => {
    const { body } = read.json("agent");
    expect(Object.keys(body)).not.toContain("engine");
    expect(JSON.stringify(body)).not.toContain("conviction");
    expect(JSON.stringify(read.json("buylist").body)).not.toContain("conviction");
    expect(JSON.stringify(read.json("buylist").body)).not.toContain("chandelier");
  });

  it("a snapshot whose engine section misses a name or a target fails its contract", () => {
    const { engine: e, ...rest } = liveToday;
    expect(Snapshot.safeParse({ ...rest, engine: { ...e!, setups: e!.setups.slice(1) } }).success).toBe(false);
    const k = e!.setups.findIndex((s) => s.targets !== null);
    const short = e!.setups.map((s, i) => (i === k ? { ...s, targets: s.targets!.slice(0, 1) } : s));
    expect(Snapshot.safeParse({ ...rest, engine: { ...e!, setups: short } }).success).toBe(false);
    // Levels without a permitted setup, or a permitted setup without them, break the contract too.
    const j = e!.setups.findIndex((s) => s.targets === null);
    const leaked = e!.setups.map((s, i) => (i === j ? { ...s, targets: [1, 2] } : s));
    expect(Snapshot.safeParse({ ...rest, engine: { ...e!, setups: leaked } }).success).toBe(false);
    expect(Snapshot.safeParse(liveToday).success).toBe(true);
  });
});
