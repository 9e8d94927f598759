import { z } from "zod";

/** The four books of SPEC.md section 1, in their published order. */
export const BookCode = z.enum(["spx", "qqq", "macro", "crypto"]);
export type BookCode = z.infer<typeof BookCode>;
export const BOOK_ORDER = BookCode.options;

/** The 20 sector labels of SPEC.md 2.5. */
export const SectorLabel = z.enum([
  "Industrials",
  "Financials",
  "Real Estate",
  "Energy",
  "Consumer Discretionary",
  "Commodities",
  "Health Care",
  "Consumer Staples",
  "Information Technology",
  "Utilities",
  "Materials",
  "Income",
  "Communication Services",
  "Biotech & Pharma",
  "Semis",
  "Bonds",
  "Internet & Media",
  "Precious Metals",
  "Software",
  "Crypto",
]);
export type SectorLabel = z.infer<typeof SectorLabel>;

/** A name's sector, or the index rung of the permission ladder (SPY, QQQ, IWM, DIA, RSP). */
export const SectorOrIndex = z.union([SectorLabel, z.literal("Index")]);
export type SectorOrIndex = z.infer<typeof SectorOrIndex>;

export const Symbol = z.string().regex(/^[A-Z][A-Z0-9.-]{0,11}$/, "a ticker such as AAPL, BRK.B or BTC-USD");
export type Symbol = z.infer<typeof Symbol>;

export const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD");
export type IsoDate = z.infer<typeof IsoDate>;

/** ISO 8601 date-time with an explicit offset (Z or +hh:mm). */
export const IsoDateTime = z.iso.datetime({ offset: true });
export type IsoDateTime = z.infer<typeof IsoDateTime>;

export const Score = z.number().min(0).max(100);
export const Percentile = z.number().int().min(1).max(99);

/** USDC base units (6 decimals), as a decimal string on the wire. */
export const BaseUnits = z.string().regex(/^(0|[1-9]\d*)$/, "an integer of USDC base units");
export type BaseUnits = z.infer<typeof BaseUnits>;

export const PRODUCT = "scored-market-board" as const;
export const DIRECTORY_PRODUCT = "scored-market-board-directory" as const;

export const DISCLAIMER =
  "Research publication, identical for every reader; not individualized investment advice. " +
  "Scores describe historical and technical structure, not future returns.";
