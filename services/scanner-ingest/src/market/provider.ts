// What the scanner needs from a source of prices: adjusted daily bars, and the live partial bar
// during market hours. The simulator implements it today; a CSV or vendor feed will later.

import type { ProviderInfo } from "@board/proto";

/** One daily bar. `date` is the New York trading day (crypto: the UTC calendar day). */
export type Bar = {
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
};

/**
 * A market data source. Both reads are async so a network-backed provider fits; the simulator
 * answers immediately.
 */
export interface MarketDataProvider {
  readonly info: ProviderInfo;

  /** Whether intradayBar can give the day in progress; without it the board refreshes at closes and mornings only. */
  readonly intraday: boolean;

  /** Releases what the provider holds (timers, queued requests); called at shutdown. */
  close?(): void;

  /**
   * Asked once before a scan's reads, with every name the scan will read: a provider with
   * whole-market requests (a vendor's grouped daily bars, multi-symbol snapshots or bars)
   * fetches them here, and the per-name reads that follow are answered from what it fetched.
   * A name it could not fetch is left to the per-name read. Absent: nothing to prepare.
   */
  prepareScan?(entries: readonly { sym: string; kind: string }[], scan: ScanPlan): Promise<void>;

  /**
   * Up to `count` completed daily bars of `sym` ending at `through` (YYYY-MM-DD, inclusive), oldest
   * first. Fewer when the history is shorter. Equities have a bar per NYSE session, crypto one per
   * UTC calendar day. Throws on a symbol the provider does not know.
   */
  dailyBars(sym: string, through: string, count: number): Promise<Bar[]>;

  /**
   * The partial bar of the day in progress at `at`: open so far, high/low so far, last price as the
   * close, volume so far. Equities: null when the market is shut at `at`. Crypto trades
   * continuously, so it always has one (its day is the UTC calendar day of `at`).
   */
  intradayBar(sym: string, at: Date): Promise<Bar | null>;
}

/** What one scan will read: the daily bars through a day, and the partial bar at an instant in market hours. */
export type ScanPlan = {
  /** The last completed session the daily reads end at (YYYY-MM-DD). */
  through: string;
  /** Daily bars per name. */
  count: number;
  /** The scan's instant. */
  at: Date;
  /** Whether the scan reads the day in progress (intradayBar). */
  intraday: boolean;
};
