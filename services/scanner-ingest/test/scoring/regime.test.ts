// Regime verdicts: every rule of SCORING.md from hand-built bar series (index, members, credit,
// BTC and ETH), and the hysteresis (two closes confirm a change, the band around the average).

import { describe, expect, it } from "vitest";
import { addDays } from "../../src/market/days.js";
import type { Bar } from "../../src/market/provider.js";
import { BOOKS } from "../../src/scoring/books.js";
import { prepareBars, type PreparedBars } from "../../src/scoring/features.js";
import { RatioLine, equityRegimeBars, trendBars, type Series } from "../../src/scoring/history.js";
import {
  bandedSide,
  confirmForward,
  cryptoRegime,
  cryptoTrack,
  equityRegime,
  equityRule,
  equityTrack,
  sinceOf,
  trendOf,
  type EquityBar,
  type SectorRead,
  type TrendBar,
} from "../../src/scoring/regime.js";

const START = "2025-01-01";

/** Bars from per-bar close changes; 1-point wicks. */
function bars(moves: readonly number[], start = 100): Bar[] {
  let c = start;
  return moves.map((d, i) => {
    const open = c;
    c += d;
    return { date: addDays(START, i), open, high: Math.max(open, c) + 1, low: Math.min(open, c) - 1, close: c, volume: 1e6 };
  });
}
const rep = (n: number, d: number) => Array<number>(n).fill(d);
const prep = (moves: readonly number[], start = 100): PreparedBars => prepareBars(bars(moves, start));
const series = (moves: readonly number[], start = 100, partial = false): Series => ({ bars: prep(moves, start), partial });

const N = 300;
const UP = rep(N, 0.3); // 100 -> 190: above a rising SMA50 > SMA200
const DOWN = rep(N, -0.3); // 200 -> 110, started higher: below both averages
/** 20 members, `k` of them in an uptrend: breadth50 = breadth200 = 5k percent. */
const members = (k: number) => Array.from({ length: 20 }, (_, i) => (i < k ? prep(UP) : prep(DOWN, 200)));

const SECTORS: SectorRead[] = [
  { label: "Energy", aboveSma50: true, r63: 0.3 },
  { label: "Semis", aboveSma50: false, r63: 0.2 },
];

function equityFromBars(index: Series, k: number, credit: RatioLine | null = null) {
  const { closes, partial } = equityRegimeBars(index, members(k), credit);
  return equityRegime({ book: credit ? BOOKS.macro : BOOKS.spx, closes, partial, sectors: SECTORS });
}

describe("equity verdicts from bars", () => {
  it("reads breadth per date off the members' bars", () => {
    const { closes } = equityRegimeBars(series(UP), members(13), null);
    expect(closes).toHaveLength(120);
    expect(closes[0]!.date).toBe(addDays(START, N - 120));
    expect(closes.every((c) => c.breadth50 === 65 && c.breadth200 === 65 && c.creditOk === null)).toBe(true);
  });

  it("RISK_OFF: the index below its 200-day average", () => {
    const v = equityFromBars(series(DOWN, 200), 14);
    expect(v).toMatchObject({ verdict: "RISK_OFF", stance: "stand-down", pending: null, index_above_sma200: false });
    expect(v.ladder).toEqual({ index: false, sectors: [], names: "none" });
  });

  it("INDEX_ONLY: above, b50 < 40", () => {
    expect(equityFromBars(series(UP), 7).verdict).toBe("INDEX_ONLY"); // 35%
  });

  it("SECTORS_ON: above, 40 <= b50 < 50", () => {
    expect(equityFromBars(series(UP), 8).verdict).toBe("SECTORS_ON"); // 40%
    expect(equityFromBars(series(UP), 9).verdict).toBe("SECTORS_ON"); // 45%
  });

  it("SELECTIVE: above, 50 <= b50 < 60", () => {
    expect(equityFromBars(series(UP), 10).verdict).toBe("SELECTIVE"); // 50%
    expect(equityFromBars(series(UP), 11).verdict).toBe("SELECTIVE"); // 55%
  });

  it("SELECTIVE: broad breadth but the index below its 50-day average (still above its 200-day)", () => {
    const index = series([...rep(N - 12, 0.3), ...rep(12, -1)]);
    const v = equityFromBars(index, 14);
    expect(v.index_above_sma50).toBe(false);
    expect(v.index_above_sma200).toBe(true);
    expect(v.verdict).toBe("SELECTIVE");
  });

  it("NAMES_ON: index > SMA50 > SMA200, SMA200 rising, b50 >= 60 and b200 >= 55", () => {
    const v = equityFromBars(series(UP), 12); // 60%
    expect(v).toMatchObject({ verdict: "NAMES_ON", stance: "risk-on", breadth_50: 60, breadth_200: 60, since: addDays(START, N - 120) });
    expect(v.ladder.names).toBe("green_sectors");
  });

  it("macro credit cap: HYG/IEF below its 50-day average caps the verdict at SECTORS_ON", () => {
    const ief = prep(rep(N, 0.05));
    const weakCredit = new RatioLine(prep(rep(N, -0.05)), ief);
    const goodCredit = new RatioLine(prep(rep(N, 0.2)), ief);
    expect(equityFromBars(series(UP), 14, goodCredit).verdict).toBe("NAMES_ON");
    const capped = equityFromBars(series(UP), 14, weakCredit);
    expect(capped.verdict).toBe("SECTORS_ON");
    expect(capped.line).toMatch(/credit weak/);
    // The cap never lifts a weaker verdict.
    expect(equityFromBars(series(UP), 6, weakCredit).verdict).toBe("INDEX_ONLY");
  });
});

describe("equity rule thresholds", () => {
  const bar = (over: Partial<EquityBar> = {}): EquityBar => ({
    date: "2026-01-05",
    close: 110,
    sma50: 105,
    sma200: 100,
    sma200Past: 98,
    breadth50: 70,
    breadth200: 70,
    creditOk: null,
    ...over,
  });
  it("draws each line where SCORING.md does", () => {
    const v = (over: Partial<EquityBar>) => equityRule(bar(over), true);
    expect(v({ breadth50: 39.9 })).toBe("INDEX_ONLY");
    expect(v({ breadth50: 40 })).toBe("SECTORS_ON");
    expect(v({ breadth50: 49.9 })).toBe("SECTORS_ON");
    expect(v({ breadth50: 50 })).toBe("SELECTIVE");
    expect(v({ breadth50: 59.9 })).toBe("SELECTIVE");
    expect(v({ breadth50: 60, breadth200: 55 })).toBe("NAMES_ON");
    expect(v({ breadth50: 60, breadth200: 54.9 })).toBe("SELECTIVE");
    expect(v({ sma200Past: 100.5 })).toBe("SELECTIVE"); // SMA200 falling
    expect(v({ creditOk: false })).toBe("SECTORS_ON");
    expect(equityRule(bar(), false)).toBe("RISK_OFF");
  });
});

// ---------------------------------------------------------------------------------------------

describe("hysteresis: two closes confirm, the band holds", () => {
  const day = (i: number) => addDays("2026-03-02", i);
  /** Closes of the index against a flat 200-day average of 100, breadth 45 (SECTORS_ON when above). */
  const closes = (xs: readonly number[]): EquityBar[] =>
    xs.map((close, i) => ({ date: day(i), close, sma50: 100, sma200: 100, sma200Past: 99, breadth50: 45, breadth200: 45, creditOk: null }));

  it("confirmForward: a change needs two agreeing closes in a row", () => {
    expect(confirmForward(["A", "B", "A", "B", "B", "A"])).toEqual(["A", "A", "A", "A", "B", "B"]);
    expect(confirmForward(["A", "B", "C", "C"])).toEqual(["A", "A", "A", "C"]);
    expect(confirmForward([])).toEqual([]);
    expect(sinceOf(["A", "A", "B", "B"], ["d1", "d2", "d3", "d4"])).toBe("d3");
    expect(sinceOf(["A", "A"], ["d1", "d2"])).toBe("d1");
  });

  it("one close across the line does not flip the verdict; it shows as pending", () => {
    const t = equityTrack(closes([105, 105, 105, 105, 97]), null);
    expect(t).toMatchObject({ value: "SECTORS_ON", pending: "RISK_OFF", since: day(0) });
  });

  it("two closes across the line flip it; since is the confirming close", () => {
    const t = equityTrack(closes([105, 105, 105, 97, 97]), null);
    expect(t).toMatchObject({ value: "RISK_OFF", pending: null, since: day(4) });
    // And back: one close above is pending, two confirm.
    expect(equityTrack(closes([105, 97, 97, 97, 103]), null)).toMatchObject({ value: "RISK_OFF", pending: "SECTORS_ON", since: day(2) });
    expect(equityTrack(closes([105, 97, 97, 103, 103]), null)).toMatchObject({ value: "SECTORS_ON", pending: null, since: day(4) });
  });

  it("alternating closes never confirm", () => {
    expect(equityTrack(closes([105, 97, 105, 97, 105, 97]), null)).toMatchObject({ value: "SECTORS_ON", pending: "RISK_OFF", since: day(0) });
  });

  it("the band holds inside +/-1% of the 200-day average, from either side", () => {
    // Above, then many closes just under the average: still above.
    expect(equityTrack(closes([105, 105, 99.5, 99.2, 99, 99.1, 99.9, 99.3]), null)).toMatchObject({ value: "SECTORS_ON", pending: null });
    // Below, then many closes just over it: still below.
    expect(equityTrack(closes([95, 95, 100.5, 100.8, 101, 100.2, 100.9]), null)).toMatchObject({ value: "RISK_OFF", pending: null });
    // Beyond the band twice: the verdict changes.
    expect(equityTrack(closes([95, 95, 100.5, 101.2, 101.5]), null)).toMatchObject({ value: "SECTORS_ON", since: day(4) });
    expect(equityTrack(closes([105, 105, 99.5, 98.9, 98.5]), null)).toMatchObject({ value: "RISK_OFF", since: day(4) });
    // A close in the band after one close beyond it is read on the side that close set.
    expect(equityTrack(closes([105, 105, 98.5, 99.5]), null)).toMatchObject({ value: "RISK_OFF", since: day(3) });
  });

  it("bandedSide: strict edges; inside the band the previous side holds", () => {
    expect(bandedSide(99, 100, 0.01, "above")).toBe("above");
    expect(bandedSide(98.99, 100, 0.01, "above")).toBe("below");
    expect(bandedSide(101, 100, 0.01, "below")).toBe("below");
    expect(bandedSide(101.01, 100, 0.01, "below")).toBe("above");
    expect(bandedSide(100, 100, 0.01, null)).toBe("above");
    expect(bandedSide(99.5, 100, 0.01, null)).toBe("below");
  });

  it("breadth changes need two closes too", () => {
    const xs = closes([105, 105, 105, 105]).map((c) => ({ ...c, breadth50: 70, breadth200: 70, sma200Past: 99, sma50: 102 }));
    expect(equityTrack(xs, null).value).toBe("NAMES_ON");
    const one = xs.map((c, i) => (i === 3 ? { ...c, breadth50: 45 } : c));
    expect(equityTrack(one, null)).toMatchObject({ value: "NAMES_ON", pending: "SECTORS_ON" });
    const two = xs.map((c, i) => (i >= 2 ? { ...c, breadth50: 45 } : c));
    expect(equityTrack(two, null)).toMatchObject({ value: "SECTORS_ON", pending: null, since: day(3) });
  });

  it("intraday: today's partial bar only ever shows as pending", () => {
    const done = closes([105, 105, 105, 97]);
    const [partial] = closes([97]).map((c) => ({ ...c, date: day(4) }));
    // Yesterday's close and today's partial bar agree, but only completed closes confirm.
    expect(equityTrack(done, partial!)).toMatchObject({ value: "SECTORS_ON", pending: "RISK_OFF" });
    const [back] = closes([105]).map((c) => ({ ...c, date: day(4) }));
    expect(equityTrack(done, back!)).toMatchObject({ value: "SECTORS_ON", pending: null });
  });

  it("from bars: an index one close under its 200-day band is pending, two closes are RISK_OFF", () => {
    // A long flat base at 100 (SMA200 about 100), lifted to 104, then closes at 97.
    const base = [...rep(N - 20, 0), 4, ...rep(17, 0)];
    const one = equityFromBars(series([...base, 0, -7]), 14);
    expect(one.verdict).not.toBe("RISK_OFF");
    expect(one.pending).toBe("RISK_OFF");
    expect(one.line).toMatch(/Pending RISK_OFF/);
    const two = equityFromBars(series([...base, -7, 0]), 14);
    expect(two).toMatchObject({ verdict: "RISK_OFF", pending: null, since: addDays(START, N - 1) });
  });
});

// ---------------------------------------------------------------------------------------------

describe("crypto verdicts and trends", () => {
  const crypto = (btc: Series, eth: Series) => {
    const tb = trendBars(btc);
    const te = trendBars(eth);
    const b = trendOf(tb.closes, tb.partial);
    const e = trendOf(te.closes, te.partial);
    const last = btc.bars.close.length - 1;
    return {
      btc: b,
      eth: e,
      regime: cryptoRegime({
        book: BOOKS.crypto,
        btc: b,
        eth: e,
        index: { close: btc.bars.close[last]!, sma50: 0, sma200: 0 },
        breadth50: 50,
        breadth200: 50,
        sectors: SECTORS,
      }),
    };
  };
  const up = () => series(rep(N, 200), 60_000);
  const down = () => series(rep(N, -100), 90_000);

  it("RISK_OFF: BTC below its 50-day average, whatever ETH does", () => {
    expect(crypto(down(), up()).regime.verdict).toBe("RISK_OFF");
    expect(crypto(down(), down()).regime.verdict).toBe("RISK_OFF");
  });

  it("INDEX_ONLY: BTC above, ETH below", () => {
    const r = crypto(up(), down());
    expect(r.regime).toMatchObject({ verdict: "INDEX_ONLY", stance: "stand-down" });
    expect(r.regime.ladder).toEqual({ index: true, sectors: [], names: "none" });
  });

  it("NAMES_ON: both above", () => {
    const r = crypto(up(), up());
    expect(r.regime.verdict).toBe("NAMES_ON");
    expect(r.regime.ladder).toEqual({ index: true, sectors: ["Crypto"], names: "green_sectors" });
    expect(r.btc).toMatchObject({ value: "on", pending: null });
  });

  const day = (i: number) => addDays("2026-03-02", i);
  const tb = (xs: readonly number[]): TrendBar[] => xs.map((close, i) => ({ date: day(i), close, sma50: 100 }));

  it("trend: one close below the band is pending, two turn it off", () => {
    expect(trendOf(tb([105, 105, 105, 97]), null)).toMatchObject({ value: "on", pending: "off", since: day(0) });
    expect(trendOf(tb([105, 105, 97, 97]), null)).toMatchObject({ value: "off", pending: null, since: day(3) });
  });

  it("trend: the 2% band holds from either side", () => {
    expect(trendOf(tb([105, 105, 98.5, 98, 99, 98.2]), null)).toMatchObject({ value: "on", pending: null });
    expect(trendOf(tb([95, 95, 101.5, 102, 101]), null)).toMatchObject({ value: "off", pending: null });
    expect(trendOf(tb([95, 95, 102.5, 103]), null)).toMatchObject({ value: "on", since: day(3) });
  });

  it("trend: the partial UTC day only shows as pending", () => {
    expect(trendOf(tb([105, 105, 97]), { date: day(3), close: 97, sma50: 100 })).toMatchObject({ value: "on", pending: "off" });
  });

  it("the crypto verdict follows the confirmed trends, with their since and pending", () => {
    const btc = trendOf(tb([105, 105, 105, 105, 105, 105]), null);
    const eth = trendOf(tb([105, 105, 97, 97, 97, 97]), null);
    expect(cryptoTrack(btc, eth)).toEqual({ value: "INDEX_ONLY", since: day(3), pending: null });
    const ethBack = trendOf(tb([105, 105, 97, 97, 97, 103]), null);
    expect(cryptoTrack(btc, ethBack)).toEqual({ value: "INDEX_ONLY", since: day(3), pending: "NAMES_ON" });
    const btcOff = trendOf(tb([105, 105, 105, 105, 97, 97]), null);
    expect(cryptoTrack(btcOff, eth)).toEqual({ value: "RISK_OFF", since: day(5), pending: null });
  });

  it("from bars: BTC dropping through its band reads pending, then RISK_OFF", () => {
    const r = (moves: number[]) => crypto(series(moves, 60_000), up()).regime;
    const base = [...rep(N - 20, 0), 3_000, ...rep(17, 0)]; // 60,000 then 63,000: SMA50 about 61,000
    expect(r([...base, 0, -5_000])).toMatchObject({ verdict: "NAMES_ON", pending: "RISK_OFF" });
    expect(r([...base, -5_000, 0])).toMatchObject({ verdict: "RISK_OFF", pending: null, since: addDays(START, N - 1) });
  });
});
