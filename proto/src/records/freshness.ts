import { z } from "zod";
import { IsoDateTime } from "./common.js";

/**
 * How late a board's prices were when it was computed: `real_time`, `delayed_15m` (the vendor's
 * 15-minute delayed feed), `end_of_day` (daily bars only: the board refreshes at closes),
 * `simulated`, or `recorded` (recorded vendor responses replayed).
 */
export const DataDelay = z.enum(["real_time", "delayed_15m", "end_of_day", "simulated", "recorded"]);
export type DataDelay = z.infer<typeof DataDelay>;

/** SPEC.md 2.3: on every paid response and on the free reads; the same values ride in the X-Board-* headers. */
export const FreshnessBlock = z.object({
  market_open: z.boolean(),
  data_age_seconds: z.number().int().min(0),
  next_refresh_at: IsoDateTime,
  poll_hint: z.string().min(1),
  /**
   * How late the served board's prices were when it was computed (its provider's delay): a
   * 15-minute delayed feed's board is 15 minutes older than data_age_seconds says. Beyond SPEC.md
   * 2.3; absent when the board did not say (published before it was).
   */
  data_delay: DataDelay.optional(),
});
export type FreshnessBlock = z.infer<typeof FreshnessBlock>;

export const FRESHNESS_HEADERS = {
  marketOpen: "X-Board-Market-Open",
  nextRefresh: "X-Board-Next-Refresh",
  dataAge: "X-Board-Data-Age",
  dataDelay: "X-Board-Data-Delay",
} as const;
