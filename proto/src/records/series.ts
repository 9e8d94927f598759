import { z } from "zod";
import { IsoDate, IsoDateTime, Symbol } from "./common.js";

/** Sessions a name's daily series carries: about a year of trading days. */
export const NAME_SERIES_SESSIONS = 252;

/**
 * One name's daily closes and the averages the scoring read on each of those bars (SMA50,
 * SMA200, EMA21), as the scanner scored the board of `asof_daily` computed at `computed_at`:
 * the numbers a chart draws, never recomputed elsewhere. Columns of equal length, oldest first;
 * the last entry is the board's own bar (a partial bar when the board is intraday).
 */
export const NameSeries = z
  .object({
    version: z.literal(1),
    sym: Symbol,
    asof_daily: IsoDate,
    computed_at: IsoDateTime,
    dates: z.array(IsoDate).max(NAME_SERIES_SESSIONS),
    close: z.array(z.number()),
    sma50: z.array(z.number()),
    sma200: z.array(z.number()),
    ema21: z.array(z.number()),
  })
  .refine((s) => [s.close, s.sma50, s.sma200, s.ema21].every((c) => c.length === s.dates.length), { message: "every column has one value per date" });
export type NameSeries = z.infer<typeof NameSeries>;
