import { z } from "zod";
import { SectorLabel, Symbol } from "./common.js";
import { BoardContent } from "./board.js";
import { BoardSignals } from "./signals.js";

/** The event scanner-ingest publishes to the BOARD stream, once per scan. */
export const Snapshot = z.object({
  version: z.literal(1),
  board: BoardContent,
  /** One ETF per sector label: the sector read's `etf` parameter and the sector directory. */
  sector_etfs: z.record(SectorLabel, Symbol),
  /** The engine's selections (leaders, movers, top volume, crypto, tradfi). Optional until every scanner sends them. */
  signals: BoardSignals.optional(),
});
export type Snapshot = z.infer<typeof Snapshot>;
