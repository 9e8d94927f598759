import { z } from "zod";
import { IsoDateTime } from "./common.js";

/** SPEC.md 2.3: on every paid response and on the free reads; the same values ride in the X-Board-* headers. */
export const FreshnessBlock = z.object({
  market_open: z.boolean(),
  data_age_seconds: z.number().int().min(0),
  next_refresh_at: IsoDateTime,
  poll_hint: z.string().min(1),
});
export type FreshnessBlock = z.infer<typeof FreshnessBlock>;

export const FRESHNESS_HEADERS = {
  marketOpen: "X-Board-Market-Open",
  nextRefresh: "X-Board-Next-Refresh",
  dataAge: "X-Board-Data-Age",
} as const;
