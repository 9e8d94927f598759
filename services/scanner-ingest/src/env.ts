import { baseEnv, parseEnv } from "@board/service-kit";
import { z } from "zod";

export const ScannerEnv = baseEnv(9106).extend({
  /** Which market data provider feeds the scoring engine. */
  MARKET_DATA_PROVIDER: z.enum(["simulator"]).default("simulator"),
  /** The simulator's seed: the same seed gives the same market. */
  SIMULATOR_SEED: z.coerce.number().int().min(0).default(42),
  /** Minutes between scans in market hours. */
  REFRESH_MINUTES: z.coerce.number().int().min(1).max(60).default(5),
});
export type ScannerEnv = z.infer<typeof ScannerEnv>;

export const loadEnv = (): ScannerEnv => parseEnv(ScannerEnv, process.env, "scanner-ingest");
