import { baseEnv, parseEnv } from "@board/service-kit";
import { z } from "zod";
import { POLYGON_PLANS } from "./market/vendor.js";
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
    /**
     * vendor provider: the Polygon stocks plan of the key. basic (free): end-of-day bars, 5 requests a
     * minute, no intraday board; starter and developer: 15-minute delayed; advanced: real time.
     * Published as the board's provider delay.
     */
    VENDOR_PLAN: z.enum(POLYGON_PLANS).default("basic"),
    /** vendor provider: client-side rate limit; default 5 on basic (the free tier's limit), 6000 on a paid plan (unlimited). */
    VENDOR_REQUESTS_PER_MINUTE: z.coerce.number().positive().max(100_000).optional(),
    /** vendor provider: time limit of one HTTP request (headers and body), in milliseconds. */
    VENDOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
    /** Which vendor MARKET_DATA_PROVIDER=vendor calls: Polygon.io (VENDOR_* settings) or Alpaca (APCA_* and ALPACA_*). */
    MARKET_DATA_VENDOR: z.enum(["polygon", "alpaca"]).default("polygon"),
    /** Alpaca: the key id and secret (the names Alpaca's SDKs read); both or neither. Without them only crypto is served, so a universe with stocks needs them. */
    APCA_API_KEY_ID: optionalText,
    APCA_API_SECRET_KEY: optionalText,
    /** Alpaca: iex (free, real time, one exchange's trades), delayed_sip (free, every exchange, 15 minutes late) or sip (paid, real time). */
    ALPACA_FEED: z.enum(["iex", "delayed_sip", "sip"]).default("iex"),
    ALPACA_BASE_URL: z.url({ protocol: /^https?$/ }).default("https://data.alpaca.markets").describe("Alpaca: the market data REST base URL."),
    /** Alpaca: client-side rate limit (the free plan's 200 a minute). */
    ALPACA_REQUESTS_PER_MINUTE: z.coerce.number().positive().max(100_000).default(200),
    /** Record the vendor's raw responses, credentials stripped, to this folder (kept local: the vendors' terms forbid redistributing them). */
    MARKET_DATA_RECORD_DIR: optionalText,
    /** Replay recorded responses from this folder instead of calling the vendor; the board says its delay is `recorded`. */
    MARKET_DATA_REPLAY_DIR: optionalText,
  })
  .superRefine((env, ctx) => {
    if (env.MARKET_DATA_PROVIDER === "csv" && env.CSV_DIR === undefined) {
      ctx.addIssue({ code: "custom", path: ["CSV_DIR"], message: "required when MARKET_DATA_PROVIDER=csv (the folder of <SYM>.csv files)" });
    }
    const vendor = env.MARKET_DATA_PROVIDER === "vendor";
    if (vendor && env.MARKET_DATA_VENDOR === "polygon" && env.VENDOR_API_KEY === undefined && env.MARKET_DATA_REPLAY_DIR === undefined) {
      ctx.addIssue({ code: "custom", path: ["VENDOR_API_KEY"], message: "required when MARKET_DATA_PROVIDER=vendor with MARKET_DATA_VENDOR=polygon (the Polygon.io API key)" });
    }
    if ((env.APCA_API_KEY_ID === undefined) !== (env.APCA_API_SECRET_KEY === undefined)) {
      ctx.addIssue({ code: "custom", path: [env.APCA_API_KEY_ID === undefined ? "APCA_API_KEY_ID" : "APCA_API_SECRET_KEY"], message: "APCA_API_KEY_ID and APCA_API_SECRET_KEY are given together" });
    }
    if (env.MARKET_DATA_RECORD_DIR !== undefined && env.MARKET_DATA_REPLAY_DIR !== undefined) {
      ctx.addIssue({ code: "custom", path: ["MARKET_DATA_REPLAY_DIR"], message: "record or replay, not both (MARKET_DATA_RECORD_DIR is set too)" });
    }
    if (!vendor && (env.MARKET_DATA_RECORD_DIR !== undefined || env.MARKET_DATA_REPLAY_DIR !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["MARKET_DATA_PROVIDER"], message: "recording and replay are of a vendor's responses: they need MARKET_DATA_PROVIDER=vendor" });
    }
  });
export type ScannerEnv = z.infer<typeof ScannerEnv>;

export const loadEnv = (): ScannerEnv => parseEnv(ScannerEnv, process.env, "scanner-ingest");
