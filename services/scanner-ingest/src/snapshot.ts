// One scan: fetch every name's bars from the provider, score the board, and wrap it as the proto
// Snapshot the scanner publishes, signals and the live tier's engine section included. The result is validated against the contract
// before it leaves.

import { addTradingDays, formatNewYork, formatPacific, MORNING_LEAD_MINUTES, previousSession } from "@board/market-calendar";
import { BOOK_ORDER, DISCLAIMER, PRODUCT, Snapshot } from "@board/proto";
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
};

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

/** Every name's bars for the scan, keyed by symbol. */
export async function collectBars(o: SnapshotOptions): Promise<Map<string, NameBars>> {
  const count = o.historyBars ?? HISTORY_BARS;
  const pairs = await Promise.all(o.universe.entries.map(async (e) => [e.sym, await barsOf(e, o, count)] as const));
  return new Map(pairs);
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

/** Fetches, scores and assembles one snapshot; throws if it does not satisfy the Snapshot contract. */
export async function buildSnapshot(o: SnapshotOptions): Promise<Snapshot> {
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
      provider: o.provider.info,
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
  return Snapshot.parse(snapshot);
}
