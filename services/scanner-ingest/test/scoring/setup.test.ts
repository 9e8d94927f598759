// A name's setup from hand-built values and bars: the structural stop and its basis, the entry
// window, targets at 2R and 3R, and conviction's bounds and cap.

import { EngineSetup, type EntryState, type HoldLabel, type LiquidityTier } from "@board/proto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays } from "../../src/market/days.js";
import type { Bar } from "../../src/market/provider.js";
import { prepareBars, technicalsAt } from "../../src/scoring/features.js";
import { chandelierStop, convictionOf, entryWindowOf, levelsOf, setupOf, structuralStop } from "../../src/scoring/setup.js";
import { isPullback } from "../../src/scoring/state.js";

type Step = { d: number; h?: number };

/** Bars from close changes `d` with wicks `h` (1 unless told) beyond the open-close body. */
function build(steps: readonly Step[], start = 100): Bar[] {
  let c = start;
  return steps.map((s, i) => {
    const open = c;
    c += s.d;
    const h = s.h ?? 1;
    return { date: addDays("2025-01-01", i), open, high: Math.max(open, c) + h, low: Math.min(open, c) - h, close: c, volume: 1_000_000 };
  });
}
const rep = (n: number, s: Step): Step[] => Array.from({ length: n }, () => s);
const UPTREND = rep(250, { d: 0.3 });
/** The READY pullback of the state tests: four bars down 2, three back up 2. */
const PULLBACK = [...UPTREND, ...rep(4, { d: -2 }), ...rep(3, { d: 2 })];

function lastBar(steps: readonly Step[]) {
  const p = prepareBars(build(steps));
  const e = p.close.length - 1;
  return { p, e, t: technicalsAt(p, e) };
}

describe("levels", () => {
  it("risk is close minus stop; targets at 2R and 3R", () => {
    const lv = levelsOf(100, 97);
    expect(lv.risk).toBe(3);
    expect(lv.targets).toEqual([106, 109]);
    expect(lv.targets.map((t) => (t - 100) / lv.risk)).toEqual([2, 3]);
  });
});

describe("entry window from the trigger's pivot", () => {
  const { t } = lastBar(PULLBACK);
  const trig = { ...t, ema21: 170, atr: 2, priorHigh: 180 };

  it("a pullback: -0.5..+1.5 ATR around EMA21 on the trigger's bar, not today's", () => {
    expect(entryWindowOf("READY", "pullback", trig, t, 100)).toEqual({ low: 169, high: 173, basis: "pullback_band" });
  });

  it("a breakout: from its pivot (the prior 20-day high on the trigger's bar) to 1 ATR above", () => {
    expect(entryWindowOf("READY", "breakout", trig, t, 100)).toEqual({ low: 180, high: 182, basis: "breakout_pivot" });
  });

  it("a READY run older than the history: today's band; a SETUP: today's pivot it must clear", () => {
    const w = entryWindowOf("READY", null, null, t, 100)!;
    expect(w.basis).toBe("pullback_band");
    expect(w.low).toBeCloseTo(t.ema21 - 0.5 * t.atr, 9);
    expect(w.high).toBeCloseTo(t.ema21 + 1.5 * t.atr, 9);
    const s = entryWindowOf("SETUP", null, null, t, 100)!;
    expect(s).toEqual({ low: t.priorHigh, high: t.priorHigh + t.atr, basis: "setup_pivot" });
  });

  it("never below the stop, and none for a state that is no long setup", () => {
    expect(entryWindowOf("READY", "pullback", trig, t, 171)!.low).toBe(171);
    for (const state of ["WAIT", "CHASE", "FALLING"] as const) expect(entryWindowOf(state, "pullback", trig, t, 100)).toBeNull();
  });
});

describe("structural stop", () => {
  it("1.5 ATR under the close when the bar is no pullback", () => {
    const { p, e, t } = lastBar(UPTREND);
    expect(isPullback(t)).toBe(false);
    const stop = structuralStop(p, e, t);
    expect(stop.basis).toBe("atr");
    expect(stop.price).toBeCloseTo(t.close - 1.5 * t.atr, 10);
  });

  it("just below the pullback low on a pullback: the lowest low of the last 10 bars less 0.1 ATR", () => {
    const { p, e, t } = lastBar(PULLBACK);
    expect(isPullback(t)).toBe(true);
    // Close 175 after the uptrend, down to 167 (that bar's low 166), back up to 173.
    expect(t.close).toBeCloseTo(173, 9);
    const stop = structuralStop(p, e, t);
    expect(stop.basis).toBe("pullback_low");
    expect(stop.price).toBeCloseTo(166 - 0.1 * t.atr, 9);
    expect(stop.price).toBeLessThan(t.close);
  });

  it("falls back to 1.5 ATR when the pullback low lies more than 3 ATR under the close", () => {
    // The same pullback with one long lower wick at its bottom.
    const steps = [...UPTREND, ...rep(3, { d: -2 }), { d: -2, h: 12 }, ...rep(3, { d: 2 })];
    const { p, e, t } = lastBar(steps);
    expect(isPullback(t)).toBe(true);
    expect((t.close - (155 - 0.1 * t.atr)) / t.atr).toBeGreaterThan(3);
    const stop = structuralStop(p, e, t);
    expect(stop).toEqual({ basis: "atr", price: t.close - 1.5 * t.atr });
  });

  it("the chandelier stop is the 22-bar highest high less 3 ATR22", () => {
    const { t } = lastBar(PULLBACK);
    expect(t.highestHighChandelier).toBeCloseTo(176, 9); // the top close 175 plus its 1-point wick
    expect(chandelierStop(t)).toBeCloseTo(176 - 3 * t.atrChandelier, 9);
  });
});

const scores = { opp_score: 80, entry_q: 70, hold_q: 90, hold_label: "STRONG" as HoldLabel, liquidity: "A" as LiquidityTier, state: "READY" as EntryState, is_leader: true };

describe("setupOf", () => {
  const { t } = lastBar(PULLBACK);
  const trig = { ...t, ema21: 99.5, atr: 2, priorHigh: 103 };
  const base = { sym: "AAA", close: 100, atr: 2, stop: { price: 97, basis: "atr" as const }, chandelier: 95.5, trigger: "pullback" as const, triggerBar: trig, today: t };

  it("a permitted READY name: the trigger's window, stop under it, targets at 2R and 3R, in cents", () => {
    const s = setupOf({ ...base, permitted: ["spx"], ...scores });
    EngineSetup.parse(s);
    expect(s).toMatchObject({
      atr: 2,
      atr_pct: 2,
      entry_window: { low: 98.5, high: 102.5 },
      entry_basis: "pullback_band",
      stop: 97,
      stop_basis: "atr",
      chandelier_stop: 95.5,
      risk_per_share: 3,
      targets: [106, 109],
      permitted: ["spx"],
      refusal: null,
    });
    // 100 x (0.35 x 0.8 + 0.2 x 0.7 + 0.15 x 0.9 + 0.2 x 1 + 0.1 x 1) = 85.5, rounded.
    expect(s).toMatchObject({ conviction: 86, conviction_label: "HIGH" });
  });

  it("anything else carries no window, stop or targets, and says why: state first, then regime, liquidity, hold", () => {
    const refusal = (over: Partial<typeof scores>, permitted: ("spx" | "qqq")[] = ["spx"]) => {
      const s = setupOf({ ...base, permitted, ...scores, ...over });
      EngineSetup.parse(s);
      if (s.refusal !== null) expect([s.entry_window, s.entry_basis, s.stop, s.stop_basis, s.risk_per_share, s.targets]).toEqual([null, null, null, null, null, null]);
      return s.refusal;
    };
    expect(refusal({ state: "FALLING", hold_label: "EXIT" }, [])).toBe("state_falling");
    expect(refusal({ state: "CHASE" })).toBe("state_chase");
    expect(refusal({ state: "WAIT" })).toBe("state_wait");
    expect(refusal({}, [])).toBe("not_permitted_by_regime");
    expect(refusal({ liquidity: "D" })).toBe("illiquid");
    expect(refusal({ hold_label: "EXIT" })).toBe("hold_exit");
    expect(refusal({ state: "SETUP" })).toBeNull();
    expect(refusal({})).toBeNull();
  });

  it("keeps that order for any close, ATR of at least 5 cents and stop 0.5-3 ATR under the close", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 50_000, noNaN: true }),
        fc.double({ min: 0.001, max: 0.2, noNaN: true }),
        fc.double({ min: 0.5, max: 3, noNaN: true }),
        (close, atrFraction, riskAtr) => {
          const atr = close * atrFraction;
          const stop = close - riskAtr * atr;
          // Prices are in cents: a range of a few cents cannot order anything.
          fc.pre(stop > 0.05 && atr >= 0.05);
          // Today's pullback band around the close as the trigger's bar.
          const bar = { ...t, ema21: close, atr, priorHigh: close };
          const s = setupOf({ ...base, close, atr, stop: { price: stop, basis: "pullback_low" }, chandelier: stop, triggerBar: bar, permitted: ["spx"], ...scores });
          EngineSetup.parse(s);
          expect(s.stop!).toBeLessThanOrEqual(s.entry_window!.low);
          expect(s.entry_window!.low).toBeLessThanOrEqual(Math.round(close * 100) / 100);
          expect(Math.round(close * 100) / 100).toBeLessThanOrEqual(s.entry_window!.high);
          expect(s.stop!).toBeLessThan(Math.round(close * 100) / 100);
          expect(s.targets![1]!).toBeGreaterThan(s.targets![0]!);
          // 2R and 3R within rounding to cents.
          expect(Math.abs(s.targets![0]! - (close + 2 * (close - stop)))).toBeLessThanOrEqual(0.005 + 1e-9);
          expect(Math.abs(s.targets![1]! - (close + 3 * (close - stop)))).toBeLessThanOrEqual(0.005 + 1e-9);
        },
      ),
    );
  });
});

describe("conviction", () => {
  const states: EntryState[] = ["READY", "SETUP", "WAIT", "CHASE", "FALLING"];

  it("runs 0..100: everything at its best is 100 HIGH, at its worst 0 NONE", () => {
    expect(convictionOf({ opp_score: 100, entry_q: 100, hold_q: 100, state: "READY", is_leader: true, permitted: true })).toEqual({ score: 100, label: "HIGH" });
    expect(convictionOf({ opp_score: 0, entry_q: 0, hold_q: 0, state: "FALLING", is_leader: false, permitted: true })).toEqual({ score: 0, label: "NONE" });
  });

  it("is an integer in 0..100 for any inputs, and never above 49 (LOW) for a name no ladder permits", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.constantFrom(...states),
        fc.boolean(),
        fc.boolean(),
        (opp_score, entry_q, hold_q, state, is_leader, permitted) => {
          const c = convictionOf({ opp_score, entry_q, hold_q, state, is_leader, permitted });
          expect(Number.isInteger(c.score)).toBe(true);
          expect(c.score).toBeGreaterThanOrEqual(0);
          expect(c.score).toBeLessThanOrEqual(100);
          if (!permitted) {
            expect(c.score).toBeLessThanOrEqual(49);
            expect(["LOW", "NONE"]).toContain(c.label);
          }
        },
      ),
    );
    expect(convictionOf({ ...scores, opp_score: 100, permitted: false })).toEqual({ score: 49, label: "LOW" });
  });

  it("labels at 70, 50 and 30, and ranks READY above SETUP above WAIT above CHASE above FALLING", () => {
    const at = (opp_score: number) => convictionOf({ opp_score, entry_q: 0, hold_q: 0, state: "FALLING", is_leader: false, permitted: true });
    expect([at(200), at(143), at(142), at(86), at(85)].map((c) => `${c.score} ${c.label}`)).toEqual(["70 HIGH", "50 MEDIUM", "50 MEDIUM", "30 LOW", "30 LOW"]);
    const byState = states.map((state) => convictionOf({ ...scores, state, permitted: true }).score);
    expect([...byState].sort((a, b) => b - a)).toEqual(byState);
    expect(new Set(byState).size).toBe(states.length);
  });
});
