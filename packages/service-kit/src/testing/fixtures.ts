import {
  BOOK_ORDER,
  DISCLAIMER,
  PRODUCT,
  SectorLabel,
  Snapshot,
  STANCE_OF,
  type Book,
  type BookCode,
  type Card,
  type NameRecord,
  type RegimeVerdictCode,
} from "@board/proto";

/**
 * A small, schema-valid snapshot for tests of the services that consume snapshots (the
 * scanner's own tests use the real engine). `seed` varies every number, so two fixtures
 * with different seeds hash differently.
 */
export function fixtureSnapshot(opts: { asofDaily: string; computedAt: string; seed?: number; names?: number; intraday?: boolean }): Snapshot {
  const seed = opts.seed ?? 1;
  const n = opts.names ?? 40;
  const sectors = SectorLabel.options;
  const states = ["READY", "SETUP", "WAIT", "CHASE", "FALLING"] as const;
  const names: NameRecord[] = Array.from({ length: n }, (_, i) => {
    const v = (i * 37 + seed * 11) % 100;
    const book: BookCode = i === 0 ? "crypto" : BOOK_ORDER[i % 3] ?? "spx";
    return {
      sym: i === 0 ? "BTC-USD" : `T${String.fromCharCode(65 + (i % 26))}${Math.floor(i / 26)}`,
      name: `Test name ${i}`,
      sector: i === 0 ? "Crypto" : (sectors[i % 19] ?? "Industrials"),
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
      hold_label: "HOLD",
      is_leader: v > 80,
      growth_score: (v * 5) % 100,
      gap_risk: i === 0 ? 0 : (v * 9) % 100,
      dollar_volume: 1e6 * (v + 1),
      adv20_usd: 1e6 * (v + 2),
      liquidity: v > 50 ? "A" : "C",
    };
  });
  const card = (sym: string, label: Card["label"]): Card => ({
    sym,
    label,
    score: 50,
    pct: 50,
    light: "cold",
    state: "WAIT",
    above_sma50: true,
    green: true,
  });
  const verdict: RegimeVerdictCode = (["NAMES_ON", "SELECTIVE", "SECTORS_ON", "INDEX_ONLY", "RISK_OFF"] as const)[seed % 5] ?? "NAMES_ON";
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
      ladder: { index: true, sectors: ["Semis"], names: "green_sectors" },
    },
    index_card: card(code === "crypto" ? "BTC-USD" : "SPY", "Index"),
    sector_cards: [card("SMH", "Semis")],
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
    sector_etfs: Object.fromEntries(sectors.map((s, i) => [s, `E${String.fromCharCode(65 + i)}X`])),
  });
}
