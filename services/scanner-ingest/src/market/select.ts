// Picks the market data provider the configuration asks for (MARKET_DATA_PROVIDER).

import type { ScannerEnv } from "../env.js";
import type { Universe } from "../universe.js";
import { CsvProvider } from "./csv.js";
import type { MarketDataProvider } from "./provider.js";
import { MarketSimulator } from "./simulator.js";
import { PolygonProvider, type VendorLog } from "./vendor.js";

export type ProviderEnv = Pick<
  ScannerEnv,
  | "MARKET_DATA_PROVIDER"
  | "SIMULATOR_SEED"
  | "CSV_DIR"
  | "VENDOR_API_KEY"
  | "VENDOR_BASE_URL"
  | "VENDOR_REQUESTS_PER_MINUTE"
  | "VENDOR_TIMEOUT_MS"
>;

export type ProviderDeps = {
  /** Where the vendor provider reports retries. */
  log?: VendorLog;
};

/**
 * The provider for `env`: the seeded simulator, end-of-day CSV files from CSV_DIR, or Polygon.io.
 * Throws when the chosen provider's settings are missing (ScannerEnv already refuses that).
 */
export function createProvider(env: ProviderEnv, universe: Pick<Universe, "entries">, deps: ProviderDeps = {}): MarketDataProvider {
  switch (env.MARKET_DATA_PROVIDER) {
    case "simulator":
      return new MarketSimulator(universe.entries, env.SIMULATOR_SEED);
    case "csv":
      if (env.CSV_DIR === undefined) throw new Error("MARKET_DATA_PROVIDER=csv needs CSV_DIR");
      return new CsvProvider(env.CSV_DIR, universe.entries);
    case "vendor":
      if (env.VENDOR_API_KEY === undefined) throw new Error("MARKET_DATA_PROVIDER=vendor needs VENDOR_API_KEY");
      return new PolygonProvider(universe.entries, {
        apiKey: env.VENDOR_API_KEY,
        baseUrl: env.VENDOR_BASE_URL,
        requestsPerMinute: env.VENDOR_REQUESTS_PER_MINUTE,
        timeoutMs: env.VENDOR_TIMEOUT_MS,
        ...(deps.log ? { log: deps.log } : {}),
      });
  }
}
