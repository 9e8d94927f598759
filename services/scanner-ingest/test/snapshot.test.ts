import { gzipSync } from "node:zlib";
import { BOOK_ORDER, BoardSignals, EngineSection, Snapshot, SectorLabel } from "@board/proto";
import { beforeAll, describe, expect, it } from "vitest";
import { MarketSimulator } from "../src/market/simulator.js";
import { BOOKS } from "../src/scoring/books.js";
import { scoreBoard, type ScoredBoard } from "../src/scoring/board.js";
import { buildSnapshot, collectBars, cryptoQuotes } from "../src/snapshot.js";
import { loadUniverse, type Universe } from "../src/universe.js";

const ASOF = "2026-11-20"; // Friday
const MORNING_AFTER = new Date("2026-11-21T14:00:00Z"); // Saturday 06:00 Pacific: the morning snapshot
const MIDDAY = new Date("2026-11-20T18:30:00Z"); // Friday 13:30 New York, market open

let universe: Universe;
let sim: MarketSimulator;
let snap: Snapshot;
let buildMs: number;
/** The same scan's scoring, with every book's reading of its members (not published as such). */
let scored: ScoredBoard;

beforeAll(async () => {
  universe = loadUniverse();
  sim = new MarketSimulator(universe.entries);
  const t0 = performance.now();
  sim.warm(ASOF);
  const warmMs = performance.now() - t0;
  // One build to warm the JIT, then the timed one (bars are cached, so this is the scan itself).
  await buildSnapshot({ universe, provider: sim, at: MORNING_AFTER, intraday: false, asofDaily: ASOF });
  const t1 = performance.now();
  snap = await buildSnapshot({ universe, provider: sim, at: MORNING_AFTER, intraday: false, asofDaily: ASOF });
  buildMs = performance.now() - t1;
  const o = { universe, provider: sim, at: MORNING_AFTER, intraday: false, asofDaily: ASOF };
  const series = await collectBars(o);
  scored = scoreBoard({ universe, series, asofDaily: ASOF, crypto: await cryptoQuotes(o, series) });
  console.log(`snapshot: bar generation ${warmMs.toFixed(0)} ms, build ${buildMs.toFixed(0)} ms (565 names, schema check included)`);
});

describe("buildSnapshot", () => {
  it("satisfies the Snapshot contract", () => {
    expect(() => Snapshot.parse(snap)).not.toThrow();
    expect(snap.version).toBe(1);
    expect(snap.board.asof_daily).toBe(ASOF);
    expect(snap.board.computed_at).toBe("2026-11-21T06:00:00-08:00");
    expect(snap.board.intraday).toBe(false);
    expect(snap.board.provider).toEqual(sim.info);
    expect(snap.board.book_order).toEqual([...BOOK_ORDER]);
    expect(snap.sector_etfs).toEqual(universe.sectorEtfs);
  });

  it("carries all 565 names in universe order and 4 books with 20 sector cards each", () => {
    expect(snap.board.names).toHaveLength(565);
    expect(snap.board.names.map((n) => n.sym)).toEqual(universe.entries.map((e) => e.sym));
    expect(Object.keys(snap.board.books).sort()).toEqual([...BOOK_ORDER].sort());
    for (const code of BOOK_ORDER) {
      const book = snap.board.books[code]!;
      expect(book.code).toBe(code);
      expect(book.sector_cards.map((c) => c.label)).toEqual([...SectorLabel.options]);
      expect(book.sector_cards.map((c) => c.sym)).toEqual(SectorLabel.options.map((l) => universe.sectorEtfs[l]));
      expect(book.members).toBe(universe.entries.filter((e) => e.books.includes(code)).length);
      expect(book.lanes.risk_adjusted.length).toBeLessThanOrEqual(10);
      expect(book.lanes.swing.length).toBeLessThanOrEqual(10);
    }
    expect(snap.board.books.spx!.regime.index_sym).toBe("SPY");
    expect(snap.board.books.qqq!.regime.index_sym).toBe("QQQ");
    expect(snap.board.books.macro!.regime.index_sym).toBe("SPY");
    expect(snap.board.books.crypto!.regime.index_sym).toBe("BTC-USD");
  });

  it("spreads states, scores and percentiles", () => {
    const names = snap.board.names;
    const states = new Set(names.map((n) => n.state));
    expect(states.size).toBeGreaterThanOrEqual(3);
    expect(new Set(names.map((n) => n.opp_score)).size).toBeGreaterThan(100);
    expect(new Set(names.map((n) => n.hold_q)).size).toBeGreaterThan(20);
    expect(new Set(names.map((n) => n.entry_q)).size).toBeGreaterThan(100);
    for (const n of names) {
      expect(Number.isInteger(n.opp_pct)).toBe(true);
      expect(n.opp_pct).toBeGreaterThanOrEqual(1);
      expect(n.opp_pct).toBeLessThanOrEqual(99);
    }
    // Each book ranks all its members: its percentiles run the whole 1..99 scale (qqq over all 101).
    for (const code of BOOK_ORDER) {
      const reading = scored.readings[code];
      expect(reading.map((r) => r.sym)).toEqual(universe.entries.filter((e) => e.books.includes(code)).map((e) => e.sym));
      expect(Math.min(...reading.map((r) => r.opp_pct))).toBe(1);
      expect(Math.max(...reading.map((r) => r.opp_pct))).toBe(99);
    }
    expect(scored.readings.qqq).toHaveLength(101);
    // A record is its first book's reading, and says so.
    for (const n of names) {
      expect(n.ranked_in).toBe(n.bk[0]);
      const { rs_pct: _, ...reading } = scored.readings[n.ranked_in].find((r) => r.sym === n.sym)!;
      expect(n).toMatchObject(reading);
    }
    const spx = names.filter((n) => n.bk[0] === "spx").map((n) => n.opp_pct);
    expect(new Set(spx).size).toBeGreaterThan(90);
    expect(names.filter((n) => n.sym.endsWith("-USD")).every((n) => n.gap_risk === 0)).toBe(true);
    expect(new Set(names.map((n) => n.liquidity)).size).toBeGreaterThanOrEqual(3);
  });

  it("keeps lanes consistent with the rules", () => {
    for (const code of BOOK_ORDER) {
      const { lanes } = snap.board.books[code]!;
      for (const e of [...lanes.risk_adjusted, ...lanes.swing]) {
        const n = snap.board.names.find((x) => x.sym === e.sym)!;
        expect(n.bk).toContain(code);
        expect(n.liquidity).not.toBe("D");
        expect(e.stop).toBeLessThan(e.price);
        expect(e.targets[0]).toBeGreaterThan(e.price);
        expect(e.targets[1]).toBeGreaterThan(e.targets[0]);
        expect(e.entry_window.low).toBeLessThan(e.entry_window.high);
      }
      for (const e of lanes.risk_adjusted) expect(["READY", "SETUP"]).toContain(e.state);
      for (const e of lanes.swing) expect(e).toMatchObject({ state: "READY", light: "firing" });
      expect(lanes.swing.map((e) => e.rank)).toEqual(lanes.swing.map((_, i) => i + 1));
    }
  });

  it("paints green only as far as the ladder allows", () => {
    for (const code of BOOK_ORDER) {
      const book = snap.board.books[code]!;
      const { ladder } = book.regime;
      expect(book.index_card.green).toBe(ladder.index);
      for (const c of book.sector_cards) expect(c.green).toBe(ladder.sectors.includes(c.label as SectorLabel));
      if (book.regime.verdict === "RISK_OFF") expect(book.sector_cards.some((c) => c.green)).toBe(false);
    }
  });

  it("carries the engine's signals, consistent with the names and books", () => {
    const signals = BoardSignals.parse(snap.signals);
    const bySym = new Map(snap.board.names.map((n) => [n.sym, n]));
    for (const code of BOOK_ORDER) {
      const leaders = signals.leaders[code];
      expect(leaders.length).toBeLessThanOrEqual(10);
      expect(leaders).not.toContain(BOOKS[code].index);
      // Leaders as the book reads its members (a name in two books may lead in one only).
      const reading = new Map(scored.readings[code].map((r) => [r.sym, r]));
      const scores = leaders.map((s) => reading.get(s)!);
      for (const n of scores) expect(n).toMatchObject({ is_leader: true });
      expect(scores.map((n) => n.opp_score)).toEqual([...scores.map((n) => n.opp_score)].sort((a, b) => b - a));
    }
    expect(signals.leaders.spx.length).toBeGreaterThan(0);
    expect(signals.movers.gainers).toHaveLength(10);
    expect(signals.movers.losers).toHaveLength(10);
    const topUp = Math.max(...snap.board.names.map((n) => n.chg_pct));
    expect(bySym.get(signals.movers.gainers[0]!)!.chg_pct).toBe(topUp);
    expect(signals.movers.losers.every((s) => bySym.get(s)!.chg_pct < 0)).toBe(true);
    expect(Object.keys(signals.top_volume).sort()).toEqual([...SectorLabel.options].sort());
    for (const [label, syms] of Object.entries(signals.top_volume)) {
      expect(syms.length).toBe(Math.min(5, snap.board.names.filter((n) => n.sector === label).length));
      const adv = syms.map((s) => bySym.get(s)!.adv20_usd);
      expect(adv).toEqual([...adv].sort((a, b) => b - a));
      for (const s of syms) expect(bySym.get(s)!.sector).toBe(label);
    }

    // Crypto: the gate agrees with the crypto book; the night read starts at Friday's US close.
    expect(signals.crypto.verdict).toBe(snap.board.books.crypto!.regime.verdict);
    expect(signals.crypto.assets.map((a) => a.sym)).toEqual(["BTC-USD", "ETH-USD"]);
    const [btc, eth] = signals.crypto.assets;
    const rule = btc!.trend === "off" ? "RISK_OFF" : eth!.trend === "off" ? "INDEX_ONLY" : "NAMES_ON";
    expect(signals.crypto.verdict).toBe(rule);
    expect(btc!.utc_close_date).toBe(ASOF);
    expect(btc!.utc_close).toBeCloseTo(sim.dailyBarsSync("BTC-USD", ASOF, 1)[0]!.close, 2);
    expect(btc!.price).toBeCloseTo(sim.intradayBarSync("BTC-USD", MORNING_AFTER)!.close, 2);
    const night = signals.crypto_night;
    expect(night.since).toBe("2026-11-20T16:00:00-05:00");
    const atClose = sim.intradayBarSync("BTC-USD", new Date("2026-11-20T21:00:00Z"))!.close;
    expect(night.assets[0]).toMatchObject({ sym: "BTC-USD" });
    expect(night.assets[0]!.price_at_us_close).toBeCloseTo(atClose, 2);
    expect(night.assets[0]!.change_pct).toBeCloseTo((btc!.price / atClose - 1) * 100, 1);

    // Tradfi: the macro book's verdict, its credit check, the four groups.
    const macro = snap.board.books.macro!.regime;
    expect(signals.tradfi_risk).toMatchObject({ verdict: macro.verdict, stance: macro.stance });
    expect(signals.tradfi_risk.groups.map((g) => g.group)).toEqual(["bonds", "credit", "gold", "dollar_sensitive"]);
    expect(signals.tradfi_risk.groups.map((g) => g.syms)).toEqual([
      ["TLT", "IEF", "SHY", "AGG", "TIP"],
      ["HYG", "LQD", "EMB", "PFF"],
      ["GLD", "SLV", "GDX"],
      ["DBC", "USO", "UNG", "DBA"],
    ]);
    if (!signals.tradfi_risk.credit_ok) expect(["SECTORS_ON", "INDEX_ONLY", "RISK_OFF"]).toContain(macro.verdict);
  });

  it("dates every verdict: since on or before the scan, pending only when it differs", () => {
    for (const code of BOOK_ORDER) {
      const r = snap.board.books[code]!.regime;
      expect(r.since <= ASOF).toBe(true);
      expect(r.pending).not.toBe(r.verdict);
    }
  });

  it("carries one setup per name, priced like the lanes and by the rules it publishes", () => {
    const engine = EngineSection.parse(snap.engine);
    const { rules, setups } = engine;
    expect(setups.map((e) => e.sym)).toEqual(snap.board.names.map((n) => n.sym));
    const bySym = new Map(setups.map((e) => [e.sym, e]));
    for (const [i, e] of setups.entries()) {
      const n = snap.board.names[i]!;
      // Only a permitted long setup has levels: READY or SETUP, permitted, liquid, not EXIT.
      const setup = ["READY", "SETUP"].includes(n.state) && e.permitted.length > 0 && n.liquidity !== "D" && n.hold_label !== "EXIT";
      expect(e.refusal === null, e.sym).toBe(setup);
      if (e.targets === null || e.stop === null || e.entry_window === null || e.risk_per_share === null) continue;
      if (e.atr > 0) {
        expect(e.stop, e.sym).toBeLessThan(n.price);
        expect(e.targets[0]!, e.sym).toBeGreaterThan(n.price);
        expect(e.targets[1]!, e.sym).toBeGreaterThan(e.targets[0]!);
      }
      expect(e.entry_window.low).toBeGreaterThanOrEqual(e.stop);
      // Targets at the published R multiples of the risk, within rounding to cents.
      rules.targets_r.forEach((r, k) => expect(Math.abs(e.targets![k]! - (n.price + r * e.risk_per_share!)), e.sym).toBeLessThan(0.02 + r * 0.005));
      if (e.stop_basis === "atr" && n.price - rules.stop.atr_multiple * e.atr > 0.01)
        expect(Math.abs(e.stop - (n.price - rules.stop.atr_multiple * e.atr)), e.sym).toBeLessThan(0.02);
      else if (e.stop_basis === "pullback_low") {
        expect(e.risk_per_share / e.atr).toBeGreaterThanOrEqual(rules.stop.pullback_min_risk_atr - 0.01);
        expect(e.risk_per_share / e.atr).toBeLessThanOrEqual(rules.stop.pullback_max_risk_atr + 0.01);
      }
      const label = rules.conviction.labels.find((l) => e.conviction >= l.min)!.label;
      expect(e.conviction_label).toBe(label);
      if (e.permitted.length === 0) expect(e.conviction).toBeLessThanOrEqual(rules.conviction.unpermitted_max);
      for (const code of e.permitted) expect(n.bk).toContain(code);
    }
    expect(new Set(setups.map((e) => e.stop_basis))).toEqual(new Set(["atr", "pullback_low", null]));
    expect(setups.some((e) => e.refusal === null)).toBe(true);
    expect(new Set(setups.map((e) => e.conviction_label)).size).toBeGreaterThanOrEqual(3);

    for (const code of BOOK_ORDER) {
      const { lanes, regime } = snap.board.books[code]!;
      for (const lane of ["risk_adjusted", "swing"] as const) {
        const rule = rules.lanes[lane];
        expect(lanes[lane].length).toBeLessThanOrEqual(rule.size);
        for (const entry of lanes[lane]) {
          const e = bySym.get(entry.sym)!;
          const n = snap.board.names.find((x) => x.sym === entry.sym)!;
          // A lane is its book's reading; stop and targets never depend on the book, the window (from the trigger) may.
          expect(entry).toMatchObject({ stop_basis: entry.stop_basis, atr_pct: e.atr_pct });
          if (e.targets !== null) expect(entry).toMatchObject({ stop: e.stop, targets: e.targets });
          if (n.ranked_in === code) expect(entry).toMatchObject({ entry_window: e.entry_window, entry_basis: e.entry_basis, stop: e.stop });
          const r = scored.readings[code].find((x) => x.sym === entry.sym)!;
          expect(entry).toMatchObject({ state: r.state, light: r.light, opp_score: r.opp_score, entry_q: r.entry_q, is_leader: r.is_leader });
          expect(e.permitted).toContain(code);
          expect(rule.states).toContain(entry.state);
          if (rule.light) expect(entry.light).toBe(rule.light);
        }
      }
      // The ladder a verdict yields is the rung the rules publish for it.
      const rung = rules.regime.ladder.find((r) => r.verdict === regime.verdict)!;
      expect(rung).toMatchObject({ index: regime.ladder.index, names: regime.ladder.names, stance: regime.stance });
      if (rung.sectors === "none") expect(regime.ladder.sectors).toEqual([]);
      if (rung.sectors === "top_by_rs") expect(regime.ladder.sectors).toHaveLength(rules.regime.top_sectors);
    }
    expect(rules.regime.ladder.map((r) => r.verdict)).toEqual(["NAMES_ON", "SELECTIVE", "SECTORS_ON", "INDEX_ONLY", "RISK_OFF"]);
    expect(rules.cadence).toEqual({ refresh_minutes: 5, morning_lead_minutes: 90, timezone: "America/New_York", crypto: "us_weekdays" });
  });

  // 400 KB before the trigger, days in state, trend count and ranking book joined every record (about 60 KB).
  it("stays small: JSON under 480 KB, of which the engine section is under 160 KB (sizes printed)", () => {
    const json = JSON.stringify(snap);
    const gz = gzipSync(json).length;
    const engine = JSON.stringify(snap.engine).length;
    console.log(`snapshot: ${json.length} bytes of JSON (engine section ${engine}), ${gz} gzipped`);
    expect(json.length).toBeLessThan(480_000);
    expect(engine).toBeLessThan(160_000);
  });

  it("builds the whole universe fast", () => {
    expect(buildMs).toBeLessThan(3_000); // the target is under 1 s; the bound only catches a blow-up
  });

  it("is deterministic", async () => {
    const again = await buildSnapshot({ universe, provider: new MarketSimulator(universe.entries), at: MORNING_AFTER, intraday: false, asofDaily: ASOF });
    expect(JSON.stringify(again)).toBe(JSON.stringify(snap));
  });

  it("builds an intraday snapshot from the partial bar", async () => {
    const live = await buildSnapshot({ universe, provider: sim, at: MIDDAY, intraday: true, asofDaily: ASOF });
    expect(() => Snapshot.parse(live)).not.toThrow();
    expect(live.board.intraday).toBe(true);
    expect(live.board.computed_at).toBe("2026-11-20T10:30:00-08:00");
    expect(live.board.names).toHaveLength(565);
    const price = (s: Snapshot, sym: string) => s.board.names.find((n) => n.sym === sym)!.price;
    const partial = sim.intradayBarSync("AAPL", MIDDAY)!;
    expect(price(live, "AAPL")).toBeCloseTo(partial.close, 2);
    const btcPartial = sim.intradayBarSync("BTC-USD", MIDDAY)!;
    expect(price(live, "BTC-USD")).toBeCloseTo(btcPartial.close, 2);
    // Day volume so far is below a full day's.
    const live$ = live.board.names.find((n) => n.sym === "SPY")!.dollar_volume;
    const full$ = snap.board.names.find((n) => n.sym === "SPY")!.dollar_volume;
    expect(live$).toBeLessThan(full$);
    // Crypto's last completed UTC day is Thursday; the night read starts at Thursday's US close.
    expect(live.signals!.crypto.assets[0]!.utc_close_date).toBe("2026-11-19");
    expect(live.signals!.crypto.assets[0]!.price).toBeCloseTo(btcPartial.close, 2);
    expect(live.signals!.crypto_night.since).toBe("2026-11-19T16:00:00-05:00");
  });

  it("refuses an intraday scan when the market is shut", async () => {
    await expect(
      buildSnapshot({ universe, provider: sim, at: MORNING_AFTER, intraday: true, asofDaily: ASOF }),
    ).rejects.toThrow(/no partial bar/);
  });
});
