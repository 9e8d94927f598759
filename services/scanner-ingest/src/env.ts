import { baseEnv, parseEnv } from "@board/service-kit";
import { z } from "zod";
import { DEFAULT_REFRESH_MINUTES } from "./schedule.js";

/** Unset and blank both mean "not given" (a blank line in an env file should not count as a value). */
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

export const ScannerEnv = baseEnv(9106)
  .extend({
    /** Which market data provider feeds the scoring engine. */
    MARKET_DATA_PROVIDER: z.enum(["simulator", "csv", "vendor"]).default("simulator"),
    /** The simulator's seed: the same seed gives the same market. */
    SIMULATOR_SEED: z.coerce.number().int().min(0).default(42),
    /** Minutes between scans in market hours. */
    REFRESH_MINUTES: z.coerce.number().int().min(1).max(60).default(DEFAULT_REFRESH_MINUTES),
    /** csv provider: the folder of <SYM>.csv daily files. Required when MARKET_DATA_PROVIDER=csv. */
    CSV_DIR: optionalText,
    /** vendor provider (Polygon.io): the API key. Required when MARKET_DATA_PROVIDER=vendor. */
    VENDOR_API_KEY: optionalText,
    /** vendor provider: the REST base URL. */
    VENDOR_BASE_URL: z.url({ protocol: /^https?$/ }).default("https://api.polygon.io"),
    /** vendor provider: client-side rate limit; 5 is Polygon's free tier. */
    VENDOR_REQUESTS_PER_MINUTE: z.coerce.number().positive().max(100_000).default(5),
    /** vendor provider: time limit of one HTTP request (headers and body), in milliseconds. */
    VENDOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  })
  .superRefine((env, ctx) => {
    if (env.MARKET_DATA_PROVIDER === "csv" && env.CSV_DIR === undefined) {
      ctx.addIssue({ code: "custom", path: ["CSV_DIR"], message: "required when MARKET_DATA_PROVIDER=csv (the folder of <SYM>.csv files)" });
    }
    if (env.MARKET_DATA_PROVIDER === "vendor" && env.VENDOR_API_KEY === undefined) {
      ctx.addIssue({ code: "custom", path: ["VENDOR_API_KEY"], message: "required when MARKET_DATA_PROVIDER=vendor (the Polygon.io API key)" });
    }
  });
export type ScannerEnv = z.infer<typeof ScannerEnv>;

export const loadEnv = (): ScannerEnv => parseEnv(ScannerEnv, process.env, "scanner-ingest");
