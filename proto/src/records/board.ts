import { z } from "zod";
import { BookCode, DISCLAIMER, IsoDate, IsoDateTime, PRODUCT } from "./common.js";
import { Book } from "./book.js";
import { DataDelay, FreshnessBlock } from "./freshness.js";
import { NameRecord } from "./name-record.js";

export const ProviderInfo = z.object({
  name: z.enum(["simulator", "csv", "vendor"]),
  detail: z.string(),
  /** True when the prices are not real market prices (the simulator). */
  simulated: z.boolean(),
  /**
   * The market data vendor (`polygon`, `alpaca`) when `name` is `vendor`; absent otherwise, and on
   * boards published before it was said.
   */
  vendor: z.string().min(1).optional(),
  /** The vendor's feed or plan the prices come from, as the vendor names it (e.g. Alpaca's `iex`). */
  feed: z.string().min(1).optional(),
  /** How late the prices are (DataDelay). Absent on boards published before it was said. */
  delay: DataDelay.optional(),
});
export type ProviderInfo = z.infer<typeof ProviderInfo>;

/** The board as the scanner publishes it: everything of SPEC.md 2.1 except the per-read freshness block. */
export const BoardContent = z.object({
  product: z.literal(PRODUCT),
  asof_daily: IsoDate,
  computed_at: IsoDateTime,
  intraday: z.boolean(),
  provider: ProviderInfo,
  book_order: z.array(BookCode),
  books: z.record(BookCode, Book),
  names: z.array(NameRecord),
  disclaimer: z.literal(DISCLAIMER),
});
export type BoardContent = z.infer<typeof BoardContent>;

/** SPEC.md 2.1: the full board as served, freshness included. */
export const FullBoard = BoardContent.extend({ freshness: FreshnessBlock });
export type FullBoard = z.infer<typeof FullBoard>;
