// The engine's selections (BoardSignals): leaders, movers, top volume, the crypto gate, crypto
// overnight and the tradfi risk read, on hand-made records and reads.

import { BoardSignals, SectorLabel, type NameRecord, type RegimeVerdict } from "@board/proto";
import { describe, expect, it } from "vitest";
import { trendOf, type TrendBar } from "../../src/scoring/regime.js";
import { cryptoNightOf, cryptoSignalOf, groupRead, leadersOf, moversOf, topVolumeOf, tradfiRiskOf, type TradfiMember } from "../../src/scoring/signals.js";

function rec(sym: string, over: Partial<NameRecord> = {}): NameRecord {
  return {
    sym,
    name: sym,
    sector: "Industrials",
    bk: ["spx"],
    price: 100,
    chg_pct: 0,
    opp_score: 50,
    opp_pct: 50,
    state: "WAIT",
    prev_state: "WAIT",
    light: "cold",
    entry_q: 50,
    hold_q: 50,
    hold_label: "WEAKENING",
    is_leader: false,
    growth_score: 50,
    gap_risk: 50,
    dollar_volume: 1e8,
    adv20_usd: 1e8,
    liquidity: "B",
    ranked_in: "spx",
    tt_count: 4,
    trigger: null,
    trigger_date: null,
    days_in_state: 3,
    ...over,
  };
}

const regime = (verdict: RegimeVerdict["verdict"]): RegimeVerdict => ({
  verdict,
  stance: verdict === "NAMES_ON" ? "risk-on" : verdict === "RISK_OFF" || verdict === "INDEX_ONLY" ? "stand-down" : "be-selective",
  line: "x",
  since: "2026-01-02",
  pending: null,
  index_sym: "SPY",
  index_above_sma50: true,
  index_above_sma200: true,
  breadth_50: 60,
  breadth_200: 60,
  ladder: { index: true, sectors: [], names: "none" },
});

describe("leaders", () => {
  it("keeps the top 10 leaders of each book by opp_score, ties by symbol, the book's index left out", () => {
    const names = [
      ...Array.from({ length: 14 }, (_, i) => rec(`L${String(i).padStart(2, "0")}`, { is_leader: true, opp_score: 60 + (i % 7) })),
      rec("SPY", { is_leader: true, opp_score: 99, bk: ["macro"], sector: "Index" }),
      rec("XLK", { is_leader: true, opp_score: 80, bk: ["macro"], sector: "Information Technology" }),
      rec("NOPE", { is_leader: false, opp_score: 100 }),
      rec("BOTH", { is_leader: true, opp_score: 90, bk: ["spx", "qqq"] }),
      rec("QQQ", { is_leader: true, opp_score: 95, bk: ["macro", "qqq"], sector: "Index" }),
      rec("ETH-USD", { is_leader: true, opp_score: 70, bk: ["crypto"], sector: "Crypto" }),
      rec("BTC-USD", { is_leader: true, opp_score: 75, bk: ["crypto"], sector: "Crypto" }),
    ];
    // Each book's members as that book reads them (here: the same figures in every book).
    const members = (code: "spx" | "qqq" | "macro" | "crypto") => names.filter((n) => n.bk.includes(code));
    const l = leadersOf({ spx: members("spx"), qqq: members("qqq"), macro: members("macro"), crypto: members("crypto") });
    expect(l.spx).toEqual(["BOTH", "L06", "L13", "L05", "L12", "L04", "L11", "L03", "L10", "L02"]);
    expect(l.qqq).toEqual(["BOTH"]); // QQQ is the qqq book's index
    expect(l.macro).toEqual(["QQQ", "XLK"]); // SPY is the macro book's index
    expect(l.crypto).toEqual(["ETH-USD"]);
  });

  it("ranks a name in two books by each book's own reading of it", () => {
    const l = leadersOf({
      spx: [rec("AAA", { is_leader: true, opp_score: 90 }), rec("BBB", { is_leader: true, opp_score: 80 })],
      qqq: [rec("AAA", { is_leader: false, opp_score: 70 }), rec("BBB", { is_leader: true, opp_score: 85 })],
      macro: [],
      crypto: [],
    });
    expect(l.spx).toEqual(["AAA", "BBB"]);
    expect(l.qqq).toEqual(["BBB"]);
  });
});

describe("movers", () => {
  it("10 gainers (up, biggest first) and 10 losers (down, biggest drop first), ties by symbol", () => {
    const names = [
      ...Array.from({ length: 15 }, (_, i) => rec(`U${String(i).padStart(2, "0")}`, { chg_pct: 1 + Math.floor(i / 2) })),
      ...Array.from({ length: 3 }, (_, i) => rec(`D${i}`, { chg_pct: -1 - i })),
      rec("FLAT", { chg_pct: 0 }),
    ];
    const m = moversOf(names);
    expect(m.gainers).toEqual(["U14", "U12", "U13", "U10", "U11", "U08", "U09", "U06", "U07", "U04"]);
    expect(m.losers).toEqual(["D2", "D1", "D0"]); // only names that fell; FLAT is neither
  });
});

describe("top volume", () => {
  it("the top 5 by adv20_usd in every one of the 20 labels, Index names left out", () => {
    const names = [
      ...Array.from({ length: 7 }, (_, i) => rec(`E${i}`, { sector: "Energy", adv20_usd: (i % 4) * 1e8 })),
      rec("SPY", { sector: "Index", adv20_usd: 1e12 }),
      rec("GLD", { sector: "Precious Metals", adv20_usd: 5e8 }),
    ];
    const t = topVolumeOf(names);
    expect(Object.keys(t)).toEqual([...SectorLabel.options]);
    expect(t.Energy).toEqual(["E3", "E2", "E6", "E1", "E5"]);
    expect(t["Precious Metals"]).toEqual(["GLD"]);
    expect(t.Software).toEqual([]);
    expect(Object.values(t).flat()).not.toContain("SPY");
  });
});

describe("crypto night", () => {
  const q = (btc: number, eth: number) => [
    { sym: "BTC-USD", atUsClose: 100_000, now: 100_000 * (1 + btc / 100) },
    { sym: "ETH-USD", atUsClose: 4_000, now: 4_000 * (1 + eth / 100) },
  ];
  const SINCE = "2026-11-20T16:00:00-05:00";

  it("risk-on when both are up more than 1%, risk-off when either is down more than 2%, else neutral", () => {
    expect(cryptoNightOf(SINCE, q(1.5, 2)).read).toBe("risk-on");
    expect(cryptoNightOf(SINCE, q(1.5, 1)).read).toBe("neutral"); // +1.00% is not more than 1%
    expect(cryptoNightOf(SINCE, q(3, -2)).read).toBe("neutral"); // -2.00% is not below -2%
    expect(cryptoNightOf(SINCE, q(3, -2.5)).read).toBe("risk-off");
    expect(cryptoNightOf(SINCE, q(-4, 0.5)).read).toBe("risk-off");
    expect(cryptoNightOf(SINCE, []).read).toBe("neutral");
  });

  it("carries prices, changes and a line", () => {
    const n = cryptoNightOf(SINCE, q(1.5, -0.25));
    expect(n.since).toBe(SINCE);
    expect(n.assets).toEqual([
      { sym: "BTC-USD", price_at_us_close: 100_000, price: 101_500, change_pct: 1.5 },
      { sym: "ETH-USD", price_at_us_close: 4_000, price: 3_990, change_pct: -0.25 },
    ]);
    expect(n.line).toBe(`Since the US close (${SINCE}): BTC-USD +1.50%, ETH-USD -0.25%: neutral.`);
  });
});

describe("the crypto gate", () => {
  const bars = (xs: number[]): TrendBar[] => xs.map((close, i) => ({ date: `2026-11-${String(10 + i).padStart(2, "0")}`, close, sma50: 100 }));
  it("reads each asset's trend on its last UTC close and shows the latest price", () => {
    const btc = trendOf(bars([105, 105, 97, 97]), null);
    const eth = trendOf(bars([105, 105, 105, 104]), null);
    const s = cryptoSignalOf(regime("RISK_OFF"), [
      { sym: "BTC-USD", trend: btc, lastClose: { date: "2026-11-13", close: 97, sma50: 100 }, price: 96.5 },
      { sym: "ETH-USD", trend: eth, lastClose: { date: "2026-11-13", close: 104, sma50: 100 }, price: 104.2 },
    ]);
    expect(s.verdict).toBe("RISK_OFF");
    expect(s.assets[0]).toEqual({
      sym: "BTC-USD",
      trend: "off",
      utc_close_date: "2026-11-13",
      utc_close: 97,
      sma50: 100,
      distance_pct: -3,
      since: "2026-11-13",
      price: 96.5,
    });
    expect(s.assets[1]).toMatchObject({ trend: "on", since: "2026-11-10", distance_pct: 4 });
    expect(s.line).toMatch(/^BTC-USD trend off since 2026-11-13 \(-3\.0% vs its 50-day average on the 2026-11-13 UTC close\); ETH-USD trend on/);
  });
});

describe("tradfi risk", () => {
  const m = (sym: string, state: TradfiMember["state"], aboveSma50: boolean): [string, TradfiMember] => [sym, { sym, state, aboveSma50 }];

  it("a group is supportive when 60% of it is up, stressed when half is FALLING, else neutral", () => {
    const up = { sym: "A", state: "WAIT", aboveSma50: true } as const;
    const falling = { sym: "B", state: "FALLING", aboveSma50: false } as const;
    const flat = { sym: "C", state: "WAIT", aboveSma50: false } as const;
    expect(groupRead([up, up, up, flat, falling])).toBe("supportive");
    expect(groupRead([up, up, flat, falling, falling])).toBe("neutral");
    expect(groupRead([up, falling])).toBe("stressed");
    expect(groupRead([up, flat, flat])).toBe("neutral");
    expect(groupRead([{ ...up, state: "FALLING" }])).toBe("stressed"); // above SMA50 yet FALLING is not up
    expect(groupRead([])).toBe("neutral");
  });

  it("reads only the members present in the universe, with the macro verdict and the credit check", () => {
    const members = new Map([
      m("TLT", "READY", true),
      m("IEF", "WAIT", true),
      m("SHY", "SETUP", true),
      m("HYG", "FALLING", false),
      m("LQD", "FALLING", false),
      m("GLD", "CHASE", true),
      m("DBC", "WAIT", false),
    ]);
    const t = tradfiRiskOf(regime("SECTORS_ON"), false, members);
    expect(t).toMatchObject({ verdict: "SECTORS_ON", stance: "be-selective", credit_ok: false });
    expect(t.groups).toEqual([
      { group: "bonds", syms: ["TLT", "IEF", "SHY"], read: "supportive" },
      { group: "credit", syms: ["HYG", "LQD"], read: "stressed" },
      { group: "gold", syms: ["GLD"], read: "supportive" },
      { group: "dollar_sensitive", syms: ["DBC"], read: "neutral" },
    ]);
    expect(t.line).toBe(
      "Macro book SECTORS_ON (be-selective); credit weak (HYG/IEF below its 50-day average); bonds supportive, credit stressed, gold supportive, dollar-sensitive neutral.",
    );
  });

  it("assembles into a BoardSignals that satisfies the contract", () => {
    const names = [rec("AAA", { is_leader: true, chg_pct: 2, adv20_usd: 3e8 }), rec("BBB", { chg_pct: -3 })];
    const btc = trendOf([{ date: "2026-11-13", close: 101, sma50: 100 }], null);
    const signals: BoardSignals = {
      leaders: leadersOf({ spx: names, qqq: [], macro: [], crypto: [] }),
      movers: moversOf(names),
      top_volume: topVolumeOf(names),
      crypto: cryptoSignalOf(regime("NAMES_ON"), [{ sym: "BTC-USD", trend: btc, lastClose: { date: "2026-11-13", close: 101, sma50: 100 }, price: 101 }]),
      crypto_night: cryptoNightOf("2026-11-13T16:00:00-05:00", [{ sym: "BTC-USD", atUsClose: 100, now: 101 }]),
      tradfi_risk: tradfiRiskOf(regime("NAMES_ON"), true, new Map()),
    };
    expect(() => BoardSignals.parse(signals)).not.toThrow();
  });
});
