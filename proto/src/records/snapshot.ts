import { z } from "zod";
import { SectorLabel, Symbol } from "./common.js";
import { BoardContent } from "./board.js";
import { EngineSection } from "./live.js";
import { BoardSignals } from "./signals.js";

/** The event scanner-ingest publishes to the BOARD stream, once per scan. */
export const Snapshot = z
  .object({
    version: z.literal(1),
    board: BoardContent,
    /** One ETF per sector label: the sector read's `etf` parameter and the sector directory. */
    sector_etfs: z.record(SectorLabel, Symbol),
    /** The engine's selections (leaders, movers, top volume, crypto, tradfi). Optional until every scanner sends them. */
    signals: BoardSignals.optional(),
    /** The live tier's engine data (setups and rules). Optional: an older scanner sends none, and the live views are then absent. */
    engine: EngineSection.optional(),
  })
  .superRefine((s, ctx) => {
    // One setup per name, in the names' order, each with a price per target of the rules, so the
    // board never serves a name without its setup nor a target without its R multiple.
    if (!s.engine) return;
    const { setups, rules } = s.engine;
    const names = s.board.names;
    if (setups.length !== names.length || setups.some((e, i) => e.sym !== names[i]!.sym))
      ctx.addIssue({ code: "custom", path: ["engine", "setups"], message: "must hold one setup per name, in the board's names order" });
    if (setups.some((e) => e.targets !== null && e.targets.length !== rules.targets_r.length))
      ctx.addIssue({ code: "custom", path: ["engine", "setups"], message: "every setup must have one target per rules.targets_r entry" });
    const levels = (e: (typeof setups)[number]) => [e.entry_window, e.entry_basis, e.stop, e.stop_basis, e.risk_per_share, e.targets].map((x) => x !== null);
    if (setups.some((e) => levels(e).some((present) => present !== (e.refusal === null))))
      ctx.addIssue({ code: "custom", path: ["engine", "setups"], message: "a permitted setup (refusal null) carries its window, stop and targets; any other carries none" });
  });
export type Snapshot = z.infer<typeof Snapshot>;
