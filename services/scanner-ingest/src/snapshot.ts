// One scan: fetch every name's bars from the provider, score the board, and wrap it as the proto
// Snapshot the scanner publishes. The result is validated against the contract before it leaves.

import { addTradingDays, formatPacific } from "@board/market-calendar";
import { BOOK_ORDER, DISCLAIMER, PRODUCT, Snapshot } from "@board/proto";
import { addDays, utcDateOf } from "./market/days.js";
import type { MarketDataProvider } from "./market/provider.js";
import { scoreBoard, type NameBars } from "./scoring/board.js";
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

/** Fetches, scores and assembles one snapshot; throws if it does not satisfy the Snapshot contract. */
export async function buildSnapshot(o: SnapshotOptions): Promise<Snapshot> {
  const series = await collectBars(o);
  const { names, books } = scoreBoard({ universe: o.universe, series, asofDaily: o.asofDaily });
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
  };
  return Snapshot.parse(snapshot);
}
