import {
  BOOK_ORDER,
  DISCLAIMER,
  HoldLabel,
  PRODUCT,
  SectorLabel,
  Snapshot,
  STANCE_OF,
  type Book,
  type BoardSignals,
  type BookCode,
  type Card,
  type NameRecord,
  type RegimeVerdictCode,
} from "@board/proto";

/**
 * A small, schema-valid snapshot for tests of the services that consume snapshots (the
 * scanner's own tests use the real engine). `seed` varies every number, so two fixtures
 * with different seeds hash differently. Names 0 and 1 are BTC-USD and ETH-USD (the crypto
 * book, sector Crypto); every book carries the 20 sector cards, one per sector ETF of
 * `sector_etfs` and scored alike in every book; `signals` are selected from the names.
 */
export function fixtureSnapshot(opts: { asofDaily: string; computedAt: string; seed?: number; names?: number; intraday?: boolean }): Snapshot {
  const seed = opts.seed ?? 1;
  const n = opts.names ?? 40;
  const sectors = SectorLabel.options;
  const states = ["READY", "SETUP", "WAIT", "CHASE", "FALLING"] as const;
  const names: NameRecord[] = Array.from({ length: n }, (_, i) => {
    const v = (i * 37 + seed * 11) % 100;
    const coin = CRYPTO_SYMS[i];
    const book: BookCode = coin ? "crypto" : BOOK_ORDER[i % 3] ?? "spx";
    return {
      sym: coin ?? `T${String.fromCharCode(65 + (i % 26))}${Math.floor(i / 26)}`,
      name: `Test name ${i}`,
      sector: coin ? "Crypto" : (sectors[i % 19] ?? "Industrials"),
      bk: [book],
      price: 10 + v + seed / 100,
      chg_pct: (v - 50) / 10,
      opp_score: v,
      opp_pct: Math.min(99, Math.max(1, v)),
      state: states[i % 5] ?? "WAIT",
      prev_state: null,
      light: i % 5 === 0 ? "firing" : "cold",
      entry_q: (v * 7) % 100,
      hold_q: (v * 3) % 100,
      hold_label: HoldLabel.options[i % HoldLabel.options.length] ?? "HOLD",
      is_leader: v > 80,
      growth_score: (v * 5) % 100,
      gap_risk: coin ? 0 : (v * 9) % 100,
      dollar_volume: 1e6 * (v + 1),
      adv20_usd: 1e6 * (v + 2),
      liquidity: v > 50 ? "A" : "C",
      ranked_in: book,
      tt_count: v % 9,
      trigger: states[i % 5] === "READY" ? (i % 2 === 0 ? "pullback" : "breakout") : null,
      trigger_date: states[i % 5] === "READY" ? opts.asofDaily : null,
      days_in_state: 1 + (v % 12),
    };
  });
  const sectorEtfs = Object.fromEntries(sectors.map((s, i) => [s, `E${String.fromCharCode(65 + i)}X`])) as Record<SectorLabel, string>;
  const card = (sym: string, label: Card["label"], k: number, green: boolean): Card => {
    const score = (k * 13 + seed * 7) % 100;
    return {
      sym,
      label,
      score,
      pct: Math.min(99, Math.max(1, score)),
      light: k % 4 === 0 ? "firing" : "cold",
      state: states[k % 5] ?? "WAIT",
      above_sma50: score >= 40,
      green,
      ranked_in: "macro",
    };
  };
  const verdict: RegimeVerdictCode = (["NAMES_ON", "SELECTIVE", "SECTORS_ON", "INDEX_ONLY", "RISK_OFF"] as const)[seed % 5] ?? "NAMES_ON";
  const standDown = STANCE_OF[verdict] === "stand-down";
  const greenSectors = (code: BookCode): SectorLabel[] => (standDown ? [] : GREEN_SECTORS[code]);
  const book = (code: BookCode): Book => ({
    code,
    title: code.toUpperCase(),
    members: names.filter((r) => r.bk.includes(code)).length,
    regime: {
      verdict,
      stance: STANCE_OF[verdict],
      line: `${code}: ${verdict}`,
      since: opts.asofDaily,
      pending: null,
      index_sym: code === "crypto" ? "BTC-USD" : "SPY",
      index_above_sma50: true,
      index_above_sma200: true,
      breadth_50: 55,
      breadth_200: 60,
      ladder: { index: !standDown, sectors: greenSectors(code), names: standDown ? "none" : "green_sectors" },
    },
    index_card: card(code === "crypto" ? "BTC-USD" : "SPY", "Index", 7 + BOOK_ORDER.indexOf(code), !standDown),
    sector_cards: sectors.map((label, k) => card(sectorEtfs[label], label, k, greenSectors(code).includes(label))),
    lanes: { risk_adjusted: [], swing: [] },
  });
  return Snapshot.parse({
    version: 1,
    board: {
      product: PRODUCT,
      asof_daily: opts.asofDaily,
      computed_at: opts.computedAt,
      intraday: opts.intraday ?? false,
      provider: { name: "simulator", detail: `test fixture seed ${seed}`, simulated: true },
      book_order: BOOK_ORDER,
      books: Object.fromEntries(BOOK_ORDER.map((c) => [c, book(c)])),
      names,
      disclaimer: DISCLAIMER,
    },
    sector_etfs: sectorEtfs,
    signals: fixtureSignals(names, verdict, opts.asofDaily, seed),
  });
}

const CRYPTO_SYMS: readonly (string | undefined)[] = ["BTC-USD", "ETH-USD"];

const GREEN_SECTORS: Record<BookCode, SectorLabel[]> = {
  spx: ["Semis", "Software", "Financials"],
  qqq: ["Semis", "Software"],
  macro: ["Bonds", "Precious Metals"],
  crypto: ["Crypto"],
};

/** The engine's selections, made from the fixture's names the way the scanner describes them. */
function fixtureSignals(names: NameRecord[], verdict: RegimeVerdictCode, asofDaily: string, seed: number): BoardSignals {
  const byOpp = (a: NameRecord, b: NameRecord) => b.opp_score - a.opp_score || a.sym.localeCompare(b.sym);
  const syms = (rs: NameRecord[]) => rs.map((r) => r.sym);
  const members = (code: BookCode) => names.filter((r) => r.bk.includes(code));
  const coins = names.filter((r) => r.bk.includes("crypto"));
  const macro = syms(members("macro"));
  const trendOn = verdict !== "RISK_OFF";
  return {
    leaders: Object.fromEntries(BOOK_ORDER.map((code) => [code, syms(members(code).sort(byOpp).slice(0, 10))])) as BoardSignals["leaders"],
    movers: {
      gainers: syms(names.filter((r) => r.chg_pct > 0).sort((a, b) => b.chg_pct - a.chg_pct || a.sym.localeCompare(b.sym)).slice(0, 10)),
      losers: syms(names.filter((r) => r.chg_pct < 0).sort((a, b) => a.chg_pct - b.chg_pct || a.sym.localeCompare(b.sym)).slice(0, 10)),
    },
    top_volume: Object.fromEntries(
      SectorLabel.options.map((label) => [
        label,
        syms(names.filter((r) => r.sector === label).sort((a, b) => b.adv20_usd - a.adv20_usd || a.sym.localeCompare(b.sym)).slice(0, 5)),
      ]),
    ) as BoardSignals["top_volume"],
    crypto: {
      verdict: trendOn ? "NAMES_ON" : "RISK_OFF",
      line: trendOn ? "crypto: trend on" : "crypto: trend off",
      assets: coins.map((r) => ({
        sym: r.sym,
        trend: trendOn ? "on" : "off",
        utc_close_date: asofDaily,
        utc_close: r.price,
        sma50: r.price * (trendOn ? 0.95 : 1.05),
        distance_pct: trendOn ? 5.26 : -4.76,
        since: asofDaily,
        price: r.price,
      })),
    },
    crypto_night: {
      since: `${asofDaily}T16:00:00-05:00`,
      assets: coins.map((r) => ({ sym: r.sym, price_at_us_close: r.price, price: r.price * (1 + r.chg_pct / 100), change_pct: r.chg_pct })),
      read: seed % 3 === 0 ? "risk-off" : seed % 3 === 1 ? "neutral" : "risk-on",
      line: "crypto overnight: fixture",
    },
    tradfi_risk: {
      verdict,
      stance: STANCE_OF[verdict],
      line: `macro: ${verdict}`,
      credit_ok: verdict !== "RISK_OFF",
      groups: [
        { group: "bonds", syms: macro.slice(0, 2), read: "supportive" },
        { group: "credit", syms: macro.slice(2, 3), read: "neutral" },
        { group: "gold", syms: macro.slice(3, 4), read: "supportive" },
        { group: "dollar_sensitive", syms: macro.slice(4, 6), read: "stressed" },
      ],
    },
  };
}
