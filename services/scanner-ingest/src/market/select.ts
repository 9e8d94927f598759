// Picks the market data provider the configuration asks for (MARKET_DATA_PROVIDER).

import type { ScannerEnv } from "../env.js";
import type { Universe } from "../universe.js";
import { CsvProvider } from "./csv.js";
import type { MarketDataProvider } from "./provider.js";
import { MarketSimulator } from "./simulator.js";
import { createAlpacaProvider } from "./alpaca.js";
import { marketDataFetch, replayedProvider } from "./replay.js";
import { PolygonProvider, type VendorLog } from "./vendor.js";

export type ProviderEnv = Pick<
  ScannerEnv,
  | "MARKET_DATA_PROVIDER"
  | "SIMULATOR_SEED"
  | "CSV_DIR"
  | "VENDOR_API_KEY"
  | "VENDOR_BASE_URL"
  | "VENDOR_PLAN"
  | "VENDOR_REQUESTS_PER_MINUTE"
  | "VENDOR_TIMEOUT_MS"
  | "MARKET_DATA_VENDOR"
  | "APCA_API_KEY_ID"
  | "APCA_API_SECRET_KEY"
  | "ALPACA_FEED"
  | "ALPACA_BASE_URL"
  | "ALPACA_REQUESTS_PER_MINUTE"
  | "MARKET_DATA_RECORD_DIR"
  | "MARKET_DATA_REPLAY_DIR"
>;

export type ProviderDeps = {
  /** Where the vendor provider reports retries. */
  log?: VendorLog;
};

/**
 * The provider for `env`: the seeded simulator, end-of-day CSV files from CSV_DIR, or a vendor
 * (Polygon.io or Alpaca, MARKET_DATA_VENDOR), its responses recorded or replayed when told.
 * Throws when the chosen provider's settings are missing (ScannerEnv already refuses that).
 */
export function createProvider(env: ProviderEnv, universe: Pick<Universe, "entries">, deps: ProviderDeps = {}): MarketDataProvider {
  switch (env.MARKET_DATA_PROVIDER) {
    case "simulator":
      return new MarketSimulator(universe.entries, env.SIMULATOR_SEED);
    case "csv":
      if (env.CSV_DIR === undefined) throw new Error("MARKET_DATA_PROVIDER=csv needs CSV_DIR");
      return new CsvProvider(env.CSV_DIR, universe.entries);
    case "vendor": {
      // Recorded responses are answered at once, from the folder: no rate to keep, nothing to retry.
      const http = marketDataFetch(env, globalThis.fetch, { secrets: [env.VENDOR_API_KEY, env.APCA_API_KEY_ID, env.APCA_API_SECRET_KEY].filter((v): v is string => v !== undefined) });
      const replaying = http.mode === "replay";
      const provider =
        env.MARKET_DATA_VENDOR === "alpaca"
          ? createAlpacaProvider(universe.entries, {
              keyId: env.APCA_API_KEY_ID ?? (replaying ? "replayed" : undefined),
              secretKey: env.APCA_API_SECRET_KEY ?? (replaying ? "replayed" : undefined),
              feed: env.ALPACA_FEED,
              baseUrl: env.ALPACA_BASE_URL,
              requestsPerMinute: replaying ? 100_000 : env.ALPACA_REQUESTS_PER_MINUTE,
              timeoutMs: env.VENDOR_TIMEOUT_MS,
              fetch: http.fetch,
              ...(replaying && { maxRetries: 0 }),
              ...(deps.log ? { log: deps.log } : {}),
            })
          : polygon(env, universe, http.fetch, replaying, deps);
      return replaying ? replayedProvider(provider) : provider;
    }
  }
}

function polygon(env: ProviderEnv, universe: Pick<Universe, "entries">, http: typeof fetch, replaying: boolean, deps: ProviderDeps): MarketDataProvider {
  const apiKey = env.VENDOR_API_KEY ?? (replaying ? "replayed" : undefined);
  if (apiKey === undefined) throw new Error("MARKET_DATA_PROVIDER=vendor needs VENDOR_API_KEY");
  return new PolygonProvider(universe.entries, {
    apiKey,
    baseUrl: env.VENDOR_BASE_URL,
    plan: env.VENDOR_PLAN,
    // Paid plans have no request limit; 100 a second stays polite.
    requestsPerMinute: replaying ? 100_000 : (env.VENDOR_REQUESTS_PER_MINUTE ?? (env.VENDOR_PLAN === "basic" ? 5 : 6_000)),
    timeoutMs: env.VENDOR_TIMEOUT_MS,
    fetch: http,
    ...(replaying && { maxRetries: 0 }),
    ...(deps.log ? { log: deps.log } : {}),
  });
}
