// One scan: fetch every name's bars from the provider, score the board, and wrap it as the proto
// Snapshot the scanner publishes, signals and the live tier's engine section included. The result is validated against the contract
// before it leaves.

import { addTradingDays, formatNewYork, formatPacific, MORNING_LEAD_MINUTES, previousSession } from "@board/market-calendar";
import { BOOK_ORDER, DISCLAIMER, PRODUCT, Snapshot, type ProviderInfo } from "@board/proto";
import { addDays, utcDateOf } from "./market/days.js";
import type { MarketDataProvider } from "./market/provider.js";
import { DEFAULT_REFRESH_MINUTES } from "./schedule.js";
import { scoreBoard, type CryptoQuotes, type NameBars } from "./scoring/board.js";
import { engineRules } from "./scoring/rules.js";
import type { CryptoQuote } from "./scoring/signals.js";
import { HISTORY_BARS } from "./scoring/weights.js";
import type { Universe, UniverseEntry } from "./universe.js";

export type SnapshotOptions = {
  universe: Universe;
  provider: MarketDataProvider;
  /** When the scan runs; becomes computed_at (Pacific). */
  at: Date;
  /** True during market hours: today's bar is the provider's partial bar at `at`. */
  intraday: boolean;
  /** The trading day of the scan (tradingDayOf(at)). */
  asofDaily: string;
  /** Bars per name; default HISTORY_BARS. */
  historyBars?: number;
  /** Minutes between market-hours scans, published in the live rules; default DEFAULT_REFRESH_MINUTES. */
  refreshMinutes?: number;
  /**
   * Every name's bars from the last scans that had them, kept by the caller across scans: a name the
   * provider does not give this time is scored on them, marked stale (see collectBars). Updated here.
   */
  lastKnown?: Map<string, NameBars>;
};

/** At most this share of the universe may be on last known bars; more and the scan is refused. */
export const MAX_STALE_SHARE = 0.02;
/** An equity whose last daily bar is more than this many sessions behind the scan is not trading (delisted, renamed). */
const RECENT_SESSIONS = 5;

/** Why a name has no fresh bars in a scan. */
export type MissingReason = "read_failed" | "too_few_bars" | "no_recent_bars";
export type MissingName = { sym: string; reason: MissingReason; detail: string };

/**
 * A scan refused because the provider gave too little: `vendor_unavailable` when its whole-market
 * requests failed, `vendor_incomplete` when too many names (or one with nothing to fall back on)
 * are missing. The last published board stays.
 */
export class ScanIncomplete extends Error {
  constructor(
    readonly reason: "vendor_unavailable" | "vendor_incomplete",
    message: string,
    readonly missing: readonly MissingName[] = [],
  ) {
    super(message);
    this.name = "ScanIncomplete";
  }
}

/** The collected bars, and the names scored on last known bars. */
export type CollectedBars = Map<string, NameBars> & { stale?: readonly MissingName[] };

async function barsOf(e: UniverseEntry, o: SnapshotOptions, count: number): Promise<NameBars> {
  const { provider, at, intraday, asofDaily } = o;
  if (e.kind === "crypto") {
    // Crypto days are UTC days; only closed ones count as daily bars, never past the scan's day.
    const lastClosed = addDays(utcDateOf(at), -1);
    const through = lastClosed < asofDaily ? lastClosed : asofDaily;
    const bars = await provider.dailyBars(e.sym, through, intraday ? count - 1 : count);
    if (intraday && through === lastClosed) {
      const bar = await provider.intradayBar(e.sym, at);
      if (bar !== null && bar.date > through) return { bars: [...bars, bar], partial: true };
    }
    return { bars, partial: false };
  }
  if (!intraday) return { bars: await provider.dailyBars(e.sym, asofDaily, count), partial: false };
  const bars = await provider.dailyBars(e.sym, addTradingDays(asofDaily, -1), count - 1);
  const bar = await provider.intradayBar(e.sym, at);
  if (bar === null || bar.date !== asofDaily) {
    throw new Error(
      `snapshot: intraday scan at ${at.toISOString()} for ${asofDaily}, but ${provider.info.name} has ` +
        `${bar === null ? "no partial bar" : `a partial bar for ${bar.date}`} for ${e.sym}`,
    );
  }
  return { bars: [...bars, bar], partial: true };
}

/** Why `got` cannot be scored as `e`'s bars this scan, or null when it can. */
function unusable(e: UniverseEntry, got: NameBars, o: SnapshotOptions): MissingName | null {
  const last = (got.partial ? got.bars.slice(0, -1) : got.bars).at(-1);
  if (got.bars.length < 2 || last === undefined) return { sym: e.sym, reason: "too_few_bars", detail: `${got.bars.length} bars` };
  const oldest =
    e.kind === "crypto" ? addDays(o.asofDaily, -(RECENT_SESSIONS + 1)) : addTradingDays(o.asofDaily, -(RECENT_SESSIONS + (o.intraday ? 1 : 0)));
  if (last.date < oldest) return { sym: e.sym, reason: "no_recent_bars", detail: `last bar ${last.date}` };
  return null;
}

/**
 * Every name's bars for the scan, keyed by symbol. The provider first prepares the scan (its
 * whole-market requests); when that fails the scan is refused. A name whose read then fails, or
 * comes back too short or too old (delisted, renamed), is scored on its last known bars and listed
 * in `stale`; the scan is refused when such a name has none, or when more than MAX_STALE_SHARE of
 * the universe is stale.
 */
export async function collectBars(o: SnapshotOptions): Promise<CollectedBars> {
  const count = o.historyBars ?? HISTORY_BARS;
  if (o.provider.prepareScan) {
    const plan = {
      through: o.intraday ? addTradingDays(o.asofDaily, -1) : o.asofDaily,
      count: o.intraday ? count - 1 : count,
      at: o.at,
      intraday: o.intraday,
    };
    try {
      await o.provider.prepareScan(o.universe.entries, plan);
    } catch (err) {
      throw new ScanIncomplete("vendor_unavailable", `snapshot: ${o.provider.info.name} could not prepare the scan: ${(err as Error).message}`);
    }
  }
  const results = await Promise.all(
    o.universe.entries.map(async (e) => {
      try {
        const got = await barsOf(e, o, count);
        return { e, got, missing: unusable(e, got, o) };
      } catch (err) {
        return { e, got: null, missing: { sym: e.sym, reason: "read_failed" as const, detail: (err as Error).message } };
      }
    }),
  );
  const out: CollectedBars = new Map();
  const stale: MissingName[] = [];
  const lost: MissingName[] = [];
  for (const { e, got, missing } of results) {
    if (missing === null && got !== null) {
      out.set(e.sym, got);
      continue;
    }
    const known = o.lastKnown?.get(e.sym);
    if (known && missing) {
      stale.push(missing);
      out.set(e.sym, known);
    } else if (missing) lost.push(missing);
  }
  const limit = Math.floor(o.universe.entries.length * MAX_STALE_SHARE);
  if (lost.length > 0 || stale.length > limit) {
    const all = [...lost, ...stale];
    const shown = all.slice(0, 5).map((m) => `${m.sym} (${m.reason}: ${m.detail})`).join("; ");
    throw new ScanIncomplete(
      "vendor_incomplete",
      `snapshot: ${all.length} of ${o.universe.entries.length} names missing from ${o.provider.info.name}` +
        `${lost.length > 0 ? `, ${lost.length} with no last known bars` : ""} (at most ${limit} may be stale): ${shown}`,
      all,
    );
  }
  if (o.lastKnown) for (const [sym, bars] of out) if (!stale.some((m) => m.sym === sym)) o.lastKnown.set(sym, bars);
  if (stale.length > 0) out.stale = stale;
  return out;
}

/**
 * The crypto quotes of the scan (crypto_night and the crypto gate's latest price): the last US
 * session close at or before `at`, and per crypto asset its price at that instant and at `at`,
 * from the provider's intraday bar (crypto has one at any time). Without one (null, or the read
 * fails), the price at the US close falls back to the last completed UTC daily close before it,
 * and the latest price to the last bar's close; an asset with neither is left out.
 */
export async function cryptoQuotes(o: SnapshotOptions, series: ReadonlyMap<string, NameBars>): Promise<CryptoQuotes> {
  const usClose = previousSession(o.at).close;
  const closeDay = utcDateOf(usClose);
  const quotes = await Promise.all(
    o.universe.entries
      .filter((e) => e.kind === "crypto")
      .map(async (e): Promise<CryptoQuote | null> => {
        const bars = series.get(e.sym)?.bars ?? [];
        // A provider that cannot give a bar at an instant (null, or an error) leaves the fallback.
        const barAt = (at: Date) => o.provider.intradayBar(e.sym, at).catch(() => null);
        const [nowBar, closeBar] = await Promise.all([barAt(o.at), barAt(usClose)]);
        const now = nowBar?.close ?? bars[bars.length - 1]?.close;
        const atUsClose = closeBar?.close ?? bars.findLast((b) => b.date < closeDay)?.close;
        return now !== undefined && atUsClose !== undefined && now > 0 && atUsClose > 0 ? { sym: e.sym, atUsClose, now } : null;
      }),
  );
  return { usClose: formatNewYork(usClose), quotes: quotes.filter((q): q is CryptoQuote => q !== null) };
}

/** The provider label with the names on last known bars said (the board has no per-name flag for it). */
function staleInfo(info: ProviderInfo, stale: readonly MissingName[]): ProviderInfo {
  const names = stale.map((m) => m.sym).join(", ");
  return { ...info, detail: `${info.detail}; on last known bars (not given this scan): ${names}` };
}

/** Fetches, scores and assembles one snapshot; throws if it does not satisfy the Snapshot contract. */
export async function buildSnapshot(o: SnapshotOptions): Promise<Snapshot> {
  return (await buildSnapshotWithBars(o)).snapshot;
}

/** The snapshot and the bars it was scored on (the per-name series drawn from them, series.ts). */
export async function buildSnapshotWithBars(o: SnapshotOptions): Promise<{ snapshot: Snapshot; bars: CollectedBars }> {
  const series = await collectBars(o);
  const crypto = await cryptoQuotes(o, series);
  const { names, books, signals, setups } = scoreBoard({ universe: o.universe, series, asofDaily: o.asofDaily, crypto });
  const snapshot: Snapshot = {
    version: 1,
    board: {
      product: PRODUCT,
      asof_daily: o.asofDaily,
      computed_at: formatPacific(o.at),
      intraday: o.intraday,
      provider: series.stale ? staleInfo(o.provider.info, series.stale) : o.provider.info,
      book_order: [...BOOK_ORDER],
      books,
      names,
      disclaimer: DISCLAIMER,
    },
    sector_etfs: { ...o.universe.sectorEtfs },
    signals,
    engine: {
      rules: engineRules({ refreshMinutes: o.refreshMinutes ?? DEFAULT_REFRESH_MINUTES, morningLeadMinutes: MORNING_LEAD_MINUTES }),
      setups,
    },
  };
  return { snapshot: Snapshot.parse(snapshot), bars: series };
}
