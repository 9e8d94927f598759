// Entry states driven from hand-built daily bar series (not the simulator): each state of
// SCORING.md, first match wins, read off the bars by the same features the board uses.

import { describe, expect, it } from "vitest";
import { addDays } from "../../src/market/days.js";
import type { Bar } from "../../src/market/provider.js";
import { prepareBars, technicalsAt, type Technicals } from "../../src/scoring/features.js";
import type { EntryState } from "@board/proto";
import { entryState, trendTemplate } from "../../src/scoring/state.js";
import { triggerOf, type StateBar } from "../../src/scoring/trigger.js";

/** One bar's move: close change `d`, wick `h` beyond the open-close body, volume `v`. */
type Step = { d: number; h?: number; v?: number };

function build(steps: readonly Step[], start = 100): Bar[] {
  let c = start;
  return steps.map((s, i) => {
    const open = c;
    c += s.d;
    const h = s.h ?? 1;
    return { date: addDays("2025-01-01", i), open, high: Math.max(open, c) + h, low: Math.min(open, c) - h, close: c, volume: s.v ?? 1_000_000 };
  });
}

const rep = (n: number, s: Step): Step[] => Array.from({ length: n }, () => s);

/** A calm uptrend: +0.3 a bar for 250 bars, 1-point wicks (ATR about 2). Nothing triggers. */
const UPTREND = rep(250, { d: 0.3 });

/** Technicals of the last bar (or `back` bars before it), and its state with a strong rs_pct. */
function readAt(steps: readonly Step[], back = 0, rsPct = 90): { t: Technicals; tt: number; state: ReturnType<typeof entryState> } {
  const p = prepareBars(build(steps));
  const t = technicalsAt(p, p.close.length - 1 - back);
  const tt = trendTemplate(t, rsPct);
  return { t, tt, state: entryState(t, tt) };
}

describe("entry states from hand-built bars", () => {
  it("WAIT: a calm uptrend with no trigger and no tight range", () => {
    const { t, tt, state } = readAt(UPTREND);
    expect(tt).toBe(8);
    expect(t.breakout || t.reclaimed || t.tight).toBe(false);
    expect(state).toBe("WAIT");
  });

  it("READY (breakout): a close above the prior 20-day high on 2x volume", () => {
    const steps = [...UPTREND, { d: 2, v: 2_000_000 }];
    const { t, state } = readAt(steps);
    expect(t.breakout).toBe(true);
    expect((t.close - t.sma20) / t.atr).toBeLessThan(2.5);
    expect(state).toBe("READY");
    // The same close on ordinary volume is no breakout.
    expect(readAt([...UPTREND, { d: 2 }]).state).toBe("WAIT");
  });

  it("READY needs TT >= 6: the same breakout with a weak trend template is not READY", () => {
    const { t, state } = readAt([...UPTREND, { d: 2, v: 2_000_000 }]);
    expect(state).toBe("READY");
    expect(entryState(t, 5)).not.toBe("READY");
  });

  it("READY (pullback): a dip below EMA21, then a reclaim within -0.5..+1.5 ATR of it", () => {
    const steps = [...UPTREND, ...rep(4, { d: -2 }), { d: 2 }, { d: 2 }, { d: 2 }];
    const { t, state } = readAt(steps);
    expect(t.reclaimed).toBe(true);
    expect(t.breakout).toBe(false);
    const d = (t.close - t.ema21) / t.atr;
    expect(d).toBeGreaterThanOrEqual(-0.5);
    expect(d).toBeLessThanOrEqual(1.5);
    expect(state).toBe("READY");
    // One bar earlier the close was still at/below EMA21: no reclaim yet.
    expect(readAt(steps, 1).state).toBe("WAIT");
  });

  it("SETUP: TT >= 5 and a tight range (ATR10/ATR50 < 0.8), not triggered", () => {
    const steps = [...UPTREND, ...rep(25, { d: 0, h: 0.2 })];
    const { t, tt, state } = readAt(steps);
    expect(t.atrShort / t.atrLong).toBeLessThan(0.8);
    expect(t.tight).toBe(true);
    expect(tt).toBeGreaterThanOrEqual(5);
    expect(state).toBe("SETUP");
    // With a trend template below 5 the same bars are WAIT.
    expect(entryState(t, 4)).toBe("WAIT");
  });

  it("CHASE: up and more than 2.5 ATR above SMA20, even after a breakout bar", () => {
    const steps = [...UPTREND, { d: 3 }, { d: 3 }, { d: 3, v: 3_000_000 }];
    const { t, state } = readAt(steps);
    expect((t.close - t.sma20) / t.atr).toBeGreaterThan(2.5);
    expect(state).toBe("CHASE");
  });

  it("FALLING: below a falling SMA50", () => {
    const { t, state } = readAt(rep(260, { d: -0.3 }), 0, 10);
    expect(t.close).toBeLessThan(t.sma50);
    expect(t.sma50).toBeLessThan(t.sma50Past);
    expect(state).toBe("FALLING");
  });

  it("FALLING beats everything: a breakout bar below SMA200 in a downtrend", () => {
    const steps = [...rep(260, { d: -0.3 }), { d: 1.5, v: 3_000_000 }];
    const { t, state } = readAt(steps, 0, 90);
    expect(t.close).toBeLessThan(t.sma200);
    expect(state).toBe("FALLING");
  });
});

describe("the trigger and the light", () => {
  const bar = (state: EntryState | null, breakout = false): StateBar => ({ state, breakout });

  it("fires on the bar that enters READY and the bar after, then goes cold though READY holds", () => {
    const h = [bar("WAIT"), bar("READY"), bar("READY"), bar("READY")];
    expect(triggerOf(h.slice(0, 2))).toEqual({ at: 1, trigger: "pullback", light: "firing", daysInState: 1 });
    expect(triggerOf(h.slice(0, 3))).toEqual({ at: 1, trigger: "pullback", light: "firing", daysInState: 2 });
    expect(triggerOf(h)).toEqual({ at: 1, trigger: "pullback", light: "cold", daysInState: 3 });
  });

  it("a breakout while READY triggers again; a breakout that enters READY is named a breakout", () => {
    expect(triggerOf([bar("WAIT"), bar("READY"), bar("READY"), bar("READY", true), bar("READY")])).toMatchObject({ at: 3, trigger: "breakout", light: "firing" });
    expect(triggerOf([bar("SETUP"), bar("READY", true), bar("READY"), bar("READY")])).toMatchObject({ at: 1, trigger: "breakout", light: "cold" });
    // A breakout bar that is not READY (the trend template too weak, say) triggers nothing.
    expect(triggerOf([bar("WAIT"), bar("WAIT", true), bar("WAIT")])).toEqual({ at: -1, trigger: null, light: "cold", daysInState: 2 });
  });

  it("a name that left READY today still fired yesterday; a day later it is cold with no trigger", () => {
    expect(triggerOf([bar("WAIT"), bar("READY"), bar("CHASE")])).toEqual({ at: 1, trigger: "pullback", light: "firing", daysInState: 1 });
    expect(triggerOf([bar("WAIT"), bar("READY"), bar("CHASE"), bar("CHASE")])).toEqual({ at: -1, trigger: null, light: "cold", daysInState: 2 });
  });

  it("a READY run older than the history has no trigger; days in state stop at the history's length", () => {
    const h = Array.from({ length: 65 }, () => bar("READY"));
    expect(triggerOf(h)).toEqual({ at: -1, trigger: null, light: "cold", daysInState: 64 });
    // Bars before a name's first bar are no state.
    expect(triggerOf([bar(null), bar(null), bar("WAIT")])).toEqual({ at: -1, trigger: null, light: "cold", daysInState: 1 });
  });

  it("from hand-built bars: the breakout enters READY, fires two bars, then the name is WAIT and cold", () => {
    const steps = [...UPTREND, { d: 2, v: 2_000_000 }, { d: 0.3 }, { d: 0.3 }];
    const history = [3, 2, 1, 0].map((back) => {
      const { t, state } = readAt(steps, back);
      return { state, breakout: t.breakout };
    });
    expect(history.map((b) => b.state)).toEqual(["WAIT", "READY", "WAIT", "WAIT"]);
    expect(triggerOf(history.slice(0, 2))).toMatchObject({ trigger: "breakout", light: "firing" });
    expect(triggerOf(history.slice(0, 3))).toMatchObject({ trigger: "breakout", light: "firing" });
    expect(triggerOf(history)).toMatchObject({ trigger: null, light: "cold", daysInState: 2 });
  });
});
