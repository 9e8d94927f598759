import { z } from "zod";
import { FreshnessBlock } from "./freshness.js";
import { BookCode, DIRECTORY_PRODUCT, IsoDate, SectorLabel, SectorOrIndex, Symbol } from "./common.js";

export const DirectoryEntry = z.object({
  sym: Symbol,
  name: z.string(),
  sector: SectorOrIndex,
  bk: z.array(BookCode).min(1),
});
export type DirectoryEntry = z.infer<typeof DirectoryEntry>;

/** SPEC.md 2.5. */
export const SymbolDirectory = z.object({
  product: z.literal(DIRECTORY_PRODUCT),
  free: z.literal(true),
  asof_daily: IsoDate,
  count: z.number().int().min(0),
  usage: z.record(z.string(), z.string()),
  sectors: z.partialRecord(SectorOrIndex, z.number().int().min(0)),
  symbols: z.array(DirectoryEntry),
  disclaimer: z.string(),
  freshness: FreshnessBlock,
});
export type SymbolDirectory = z.infer<typeof SymbolDirectory>;

export const SectorDirectory = z.object({
  sectors: z.array(z.object({ name: SectorLabel, etf: Symbol, members: z.number().int().min(0) })),
});
export type SectorDirectory = z.infer<typeof SectorDirectory>;
