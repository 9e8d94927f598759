import { z } from "zod";
import { BookCode, IsoDate, IsoDateTime, SectorLabel, Symbol } from "./common.js";
import { RegimeVerdictCode, Stance } from "./regime.js";

/** The crypto gate per asset: long-only trend on the UTC daily close (SCORING.md). */
export const CryptoAssetSignal = z.object({
  sym: Symbol,
  trend: z.enum(["on", "off"]),
  /** The last completed UTC daily close the signal is evaluated on. */
  utc_close_date: IsoDate,
  utc_close: z.number().positive(),
  sma50: z.number().positive(),
  /** Percent distance of the UTC close from its 50-day average. */
  distance_pct: z.number(),
  /** The UTC date the current trend state began. */
  since: IsoDate,
  price: z.number().positive(),
});
export type CryptoAssetSignal = z.infer<typeof CryptoAssetSignal>;

export const CryptoSignal = z.object({
  verdict: RegimeVerdictCode,
  line: z.string(),
  assets: z.array(CryptoAssetSignal),
});
export type CryptoSignal = z.infer<typeof CryptoSignal>;

/** What BTC and ETH did since the last US close: the overnight risk read before the open. */
export const CryptoNight = z.object({
  since: IsoDateTime,
  assets: z.array(
    z.object({
      sym: Symbol,
      price_at_us_close: z.number().positive(),
      price: z.number().positive(),
      change_pct: z.number(),
    }),
  ),
  read: z.enum(["risk-on", "neutral", "risk-off"]),
  line: z.string(),
});
export type CryptoNight = z.infer<typeof CryptoNight>;

/** The macro book's risk read: bonds, credit, gold and dollar-sensitive ETFs. */
export const TradfiRisk = z.object({
  verdict: RegimeVerdictCode,
  stance: Stance,
  line: z.string(),
  credit_ok: z.boolean(),
  groups: z.array(
    z.object({
      group: z.enum(["bonds", "credit", "gold", "dollar_sensitive"]),
      syms: z.array(Symbol),
      read: z.enum(["supportive", "neutral", "stressed"]),
    }),
  ),
});
export type TradfiRisk = z.infer<typeof TradfiRisk>;

/**
 * Selections the engine makes once per scan; the board's views join them with the name
 * records. Symbols only, so the snapshot stays small.
 */
export const BoardSignals = z.object({
  leaders: z.record(BookCode, z.array(Symbol).max(10)),
  movers: z.object({ gainers: z.array(Symbol).max(10), losers: z.array(Symbol).max(10) }),
  top_volume: z.record(SectorLabel, z.array(Symbol)),
  crypto: CryptoSignal,
  crypto_night: CryptoNight,
  tradfi_risk: TradfiRisk,
});
export type BoardSignals = z.infer<typeof BoardSignals>;
