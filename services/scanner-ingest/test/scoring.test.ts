import { describe, expect, it } from "vitest";
import type { Bar } from "../src/market/provider.js";
import { prepareBars, technicalsAt, type Technicals } from "../src/scoring/features.js";
import { emaSeries, logRegression, quantile, wilderAtrSeries } from "../src/scoring/indicators.js";
import { buildLanes, laneEntry, type LaneCandidate } from "../src/scoring/lanes.js";
import { percentileRanks, percentileRanksWithin } from "../src/scoring/percentile.js";
import { BOOKS } from "../src/scoring/books.js";
import { capVerdict, cryptoVerdict, equityRegime, equityVerdict, ladderOf, type EquityBar, type SectorRead } from "../src/scoring/regime.js";
import { entryState, holdLabel, liquidityTier, trendTemplate } from "../src/scoring/state.js";

/** A calm uptrend read: C > SMA50 > SMA200, nothing triggered. Override what a case needs. */
function tech(over: Partial<Technicals> = {}): Technicals {
  return {
    date: "2026-11-20",
    close: 110,
    chgPct: 0.5,
    sma20: 108,
    sma50: 105,
    sma150: 100,
    sma200: 98,
    sma50Past: 104,
    sma200PastTT: 96,
    sma200Past: 96,
    ema21: 107,
    atr: 2,
    atrShort: 2,
    atrLong: 2,
    highestHighChandelier: 112,
    atrChandelier: 2,
    high252: 115,
    low252: 70,
    r63: 0.1,
    r126: 0.2,
    r189: 0.25,
    r252: 0.3,
    rs: 0.19,
    nearHigh: 110 / 115,
    priorHigh: 112,
    breakout: false,
    reclaimed: false,
    tight: false,
    volumeShort: 1e6,
    volumeLong: 1e6,
    ...over,
  };
}

function bars(closes: readonly number[], volume = (_i: number) => 1_000_000): Bar[] {
  return closes.map((c, i) => ({
    date: `2026-01-${String((i % 28) + 1).padStart(2, "0")}`,
    open: c,
    high: c + 1,
    low: c - 1,
    close: c,
    volume: volume(i),
  }));
}

describe("percentileRanks", () => {
  it("maps ranks linearly onto 1..99", () => {
    expect(percentileRanks([])).toEqual([]);
    expect(percentileRanks([7])).toEqual([50]);
    expect(percentileRanks([3, 1, 2])).toEqual([99, 1, 50]);
    const many = percentileRanks(Array.from({ length: 1000 }, (_, i) => i));
    expect(many[0]).toBe(1);
    expect(many[999]).toBe(99);
    expect(many.every((p) => Number.isInteger(p) && p >= 1 && p <= 99)).toBe(true);
  });

  it("gives ties their average rank and leaves non-finite values out at 50", () => {
    expect(percentileRanks([1, 1, 2])).toEqual([26, 26, 99]);
    expect(percentileRanks([Number.NaN, 1, 2, Infinity])).toEqual([50, 1, 99, 50]);
  });

  it("ranks within a subset", () => {
    const m = percentileRanksWithin([10, 0, 5, 100], [0, 2]);
    expect([...m]).toEqual([
      [0, 99],
      [2, 1],
    ]);
  });
});

describe("indicators", () => {
  it("Wilder ATR of a constant true range is that range; EMA of a constant is the constant", () => {
    expect(wilderAtrSeries(Array(40).fill(2), 14).at(-1)).toBeCloseTo(2, 10);
    expect(emaSeries(Array(40).fill(5), 21).at(-1)).toBe(5);
  });

  it("fits an exact exponential with R squared 1", () => {
    const closes = Array.from({ length: 90 }, (_, i) => 100 * Math.exp(0.001 * i));
    const { slope, r2 } = logRegression(closes, 89, 90);
    expect(slope).toBeCloseTo(0.001, 10);
    expect(r2).toBeCloseTo(1, 10);
  });

  it("interpolates quantiles", () => {
    expect(quantile([1, 2, 3, 4, 5], 0.5)).toBe(3);
    expect(quantile([0, 10], 0.95)).toBeCloseTo(9.5, 10);
  });
});

describe("features on hand-built bars", () => {
  it("reads moving averages and ATR off the bars", () => {
    const p = prepareBars(bars(Array.from({ length: 260 }, (_, i) => 100 + i * 0.1)));
    const t = technicalsAt(p, 259);
    expect(t.sma20).toBeCloseTo(100 + 0.1 * (259 - 9.5), 8);
    expect(t.sma50).toBeCloseTo(100 + 0.1 * (259 - 24.5), 8);
    expect(t.atr).toBeCloseTo(2, 1);
    expect(t.high252).toBeCloseTo(100 + 25.9 + 1, 8);
    expect(t.r63).toBeCloseTo((100 + 25.9) / (100 + 19.6) - 1, 8);
    expect(entryState(t, trendTemplate(t, 90))).not.toBe("FALLING");
  });

  it("sees a breakout above the prior 20-day high on 1.5x volume", () => {
    const closes = [...Array(60).fill(100), 103];
    const heavy = technicalsAt(prepareBars(bars(closes, (i) => (i === 60 ? 2_000_000 : 1_000_000))), 60);
    const light = technicalsAt(prepareBars(bars(closes)), 60);
    expect(heavy.breakout).toBe(true);
    expect(light.breakout).toBe(false);
  });

  it("sees a reclaim of EMA21", () => {
    const closes = [...Array.from({ length: 60 }, (_, i) => 100 + i * 0.5), 120, 127];
    const p = prepareBars(bars(closes));
    expect(technicalsAt(p, 60).reclaimed).toBe(false); // just dipped below
    expect(technicalsAt(p, 61).reclaimed).toBe(true); // and back above
  });

  it("calls a steady decline FALLING", () => {
    const p = prepareBars(bars(Array.from({ length: 260 }, (_, i) => 200 - i * 0.3)));
    const t = technicalsAt(p, 259);
    expect(entryState(t, trendTemplate(t, 10))).toBe("FALLING");
  });
});

describe("entry state rules (first match wins)", () => {
  it("FALLING: below SMA50 with SMA50 falling, or below SMA200", () => {
    expect(entryState(tech({ close: 104, sma50Past: 106 }), 8)).toBe("FALLING");
    expect(entryState(tech({ close: 97, sma50: 105, sma200: 98 }), 8)).toBe("FALLING");
    expect(entryState(tech({ close: 104 }), 8)).not.toBe("FALLING"); // SMA50 rising, above SMA200
  });

  it("CHASE: up and more than 2.5 ATR above SMA20, even when READY would also match", () => {
    expect(entryState(tech({ close: 113.1, breakout: true }), 8)).toBe("CHASE");
    expect(entryState(tech({ close: 112.9, breakout: true }), 8)).toBe("READY");
  });

  it("READY: up, TT >= 6 and a pullback after a reclaim or a breakout", () => {
    expect(entryState(tech({ reclaimed: true }), 6)).toBe("READY"); // (110 - 107) / 2 = 1.5 ATR
    expect(entryState(tech({ reclaimed: true, ema21: 106.9 }), 6)).not.toBe("READY"); // 1.55 ATR
    expect(entryState(tech({ reclaimed: true }), 5)).not.toBe("READY");
    expect(entryState(tech({ breakout: true }), 6)).toBe("READY");
  });

  it("SETUP: TT >= 5 and tight; WAIT otherwise", () => {
    expect(entryState(tech({ tight: true }), 5)).toBe("SETUP");
    expect(entryState(tech({ tight: true }), 4)).toBe("WAIT");
    expect(entryState(tech(), 8)).toBe("WAIT");
  });

  it("trend template counts its eight rules", () => {
    expect(trendTemplate(tech(), 70)).toBe(8);
    expect(trendTemplate(tech(), 69)).toBe(7);
    expect(trendTemplate(tech({ close: 60, sma50: 90, sma150: 95, sma200: 100, sma200PastTT: 101, high252: 150, low252: 55 }), 1)).toBe(0);
  });
});

describe("labels and tiers", () => {
  it("hold labels per SCORING.md", () => {
    expect([100, 80, 79.9, 60, 59.9, 40, 39.9, 20, 19.9, 0].map(holdLabel)).toEqual([
      "STRONG",
      "STRONG",
      "HOLD",
      "HOLD",
      "WEAKENING",
      "WEAKENING",
      "TRIM",
      "TRIM",
      "EXIT",
      "EXIT",
    ]);
  });

  it("liquidity tiers A >= 500M, B >= 100M, C >= 20M, else D", () => {
    expect([600e6, 500e6, 499e6, 100e6, 99e6, 20e6, 19.9e6, 0].map(liquidityTier)).toEqual(["A", "A", "B", "B", "C", "C", "D", "D"]);
  });
});

describe("regime", () => {
  const up = tech();
  it("equity verdicts", () => {
    expect(equityVerdict(tech({ close: 97 }), 80, 80, null)).toBe("RISK_OFF");
    expect(equityVerdict(up, 39.9, 80, null)).toBe("INDEX_ONLY");
    expect(equityVerdict(up, 45, 80, null)).toBe("SECTORS_ON");
    expect(equityVerdict(up, 55, 80, null)).toBe("SELECTIVE");
    expect(equityVerdict(up, 60, 55, null)).toBe("NAMES_ON");
    expect(equityVerdict(up, 60, 54, null)).toBe("SELECTIVE");
    expect(equityVerdict(tech({ close: 104 }), 70, 70, null)).toBe("SELECTIVE"); // below its 50-day
    expect(equityVerdict(tech({ sma200Past: 99 }), 70, 70, null)).toBe("SELECTIVE"); // SMA200 falling
    expect(equityVerdict(up, 70, 70, false)).toBe("SECTORS_ON"); // credit cap
    expect(equityVerdict(up, 30, 70, false)).toBe("INDEX_ONLY"); // the cap never lifts
    expect(capVerdict("NAMES_ON", "SECTORS_ON")).toBe("SECTORS_ON");
  });

  it("crypto verdicts", () => {
    expect(cryptoVerdict(tech({ close: 100 }), up)).toBe("RISK_OFF");
    expect(cryptoVerdict(up, tech({ close: 100 }))).toBe("INDEX_ONLY");
    expect(cryptoVerdict(up, up)).toBe("NAMES_ON");
  });

  const sectors: SectorRead[] = [
    { label: "Energy", aboveSma50: true, r63: 0.3 },
    { label: "Semis", aboveSma50: false, r63: 0.25 },
    { label: "Bonds", aboveSma50: true, r63: -0.1 },
    { label: "Software", aboveSma50: true, r63: 0.2 },
    { label: "Utilities", aboveSma50: false, r63: 0.1 },
    { label: "Materials", aboveSma50: false, r63: 0.05 },
  ];

  it("ladders", () => {
    expect(ladderOf("RISK_OFF", "equity", sectors)).toEqual({ index: false, sectors: [], names: "none" });
    expect(ladderOf("INDEX_ONLY", "equity", sectors)).toEqual({ index: true, sectors: [], names: "none" });
    expect(ladderOf("SECTORS_ON", "equity", sectors)).toEqual({ index: true, sectors: ["Energy", "Bonds", "Software"], names: "none" });
    expect(ladderOf("SELECTIVE", "equity", sectors)).toEqual({
      index: true,
      sectors: ["Energy", "Semis", "Software", "Utilities", "Materials"],
      names: "leaders_in_top_sectors",
    });
    expect(ladderOf("NAMES_ON", "equity", sectors).names).toBe("green_sectors");
    expect(ladderOf("NAMES_ON", "crypto", sectors).sectors).toEqual(["Crypto"]);
  });

  it("assembles a verdict with its stance, line and ladder", () => {
    const bar = (date: string): EquityBar => ({ date, close: 110, sma50: 105, sma200: 98, sma200Past: 96, breadth50: 61.23, breadth200: 58, creditOk: null });
    const v = equityRegime({ book: BOOKS.spx, closes: [bar("2026-11-19"), bar("2026-11-20")], partial: null, sectors });
    expect(v).toMatchObject({ verdict: "NAMES_ON", stance: "risk-on", since: "2026-11-19", pending: null, index_sym: "SPY", breadth_50: 61.2 });
    expect(v.line).toMatch(/^SPY above its 200-day average, 61% of members/);
  });
});

describe("lanes", () => {
  const cand = (over: Partial<LaneCandidate>): LaneCandidate => ({
    sym: "AAA",
    opp_score: 70,
    entry_q: 60,
    state: "READY",
    light: "firing",
    is_leader: true,
    gap_risk: 50,
    liquidity: "A",
    hold_label: "HOLD",
    close: 100,
    atr: 2,
    stop: { price: 97, basis: "atr" }, // 1.5 ATR under the close
    window: { low: 99, high: 102, basis: "pullback_band" },
    ...over,
  });

  it("prices an entry from its structural stop: targets at 2R and 3R, the window as the trigger placed it", () => {
    expect(laneEntry({ ...cand({}), window: { low: 99, high: 102, basis: "pullback_band" } }, 1)).toMatchObject({
      price: 100,
      atr_pct: 2,
      stop: 97,
      stop_basis: "atr",
      targets: [106, 109],
      entry_window: { low: 99, high: 102 },
      entry_basis: "pullback_band",
    });
    // A pullback-low stop 0.3 ATR under the close: risk 0.6.
    const tight = cand({ stop: { price: 99.4, basis: "pullback_low" } });
    expect(laneEntry({ ...tight, window: { low: 101, high: 103, basis: "breakout_pivot" } }, 1)).toMatchObject({
      stop: 99.4,
      targets: [101.2, 101.8],
      entry_window: { low: 101, high: 103 },
    });
  });

  it("filters and ranks both lanes", () => {
    const lanes = buildLanes([
      cand({ sym: "AAA", opp_score: 80, atr: 4, entry_q: 50 }), // opp/ATR% 20
      cand({ sym: "BBB", opp_score: 60, atr: 1, entry_q: 90 }), // 60
      cand({ sym: "CCC", state: "SETUP", light: "cold", opp_score: 50, atr: 2 }), // 25, not swing
      cand({ sym: "DDD", liquidity: "D", opp_score: 99 }), // illiquid: off both lanes
      cand({ sym: "EEE", gap_risk: 81, entry_q: 70 }), // gappy: off risk-adjusted only
      cand({ sym: "FFF", state: "WAIT", light: "cold" }),
      cand({ sym: "GGG", light: "cold" }), // READY but cold: risk-adjusted only
      cand({ sym: "HHH", window: null, opp_score: 99 }), // no entry window: no setup, off both lanes
      cand({ sym: "III", hold_label: "EXIT", opp_score: 99 }), // hold says EXIT: off both lanes
    ]);
    expect(lanes.risk_adjusted.map((e) => e.sym)).toEqual(["BBB", "GGG", "CCC", "AAA"]);
    expect(lanes.swing.map((e) => e.sym)).toEqual(["BBB", "EEE", "AAA"]);
    expect(lanes.swing.map((e) => e.rank)).toEqual([1, 2, 3]);
  });

  it("keeps at most 10 per lane", () => {
    const many = Array.from({ length: 25 }, (_, i) => cand({ sym: `S${String(i).padStart(2, "0")}`, opp_score: i }));
    const lanes = buildLanes(many);
    expect(lanes.risk_adjusted).toHaveLength(10);
    expect(lanes.risk_adjusted[0]!.sym).toBe("S24");
  });
});
