import { z } from "zod";
import { IsoDate, SectorLabel, Symbol } from "./common.js";

/** SPEC.md 2.4. */
export const RegimeVerdictCode = z.enum(["NAMES_ON", "SELECTIVE", "SECTORS_ON", "INDEX_ONLY", "RISK_OFF"]);
export type RegimeVerdictCode = z.infer<typeof RegimeVerdictCode>;

/** The plain reading of a verdict: risk-on / be-selective / stand-down. */
export const Stance = z.enum(["risk-on", "be-selective", "stand-down"]);
export type Stance = z.infer<typeof Stance>;

export const STANCE_OF: Record<RegimeVerdictCode, Stance> = {
  NAMES_ON: "risk-on",
  SELECTIVE: "be-selective",
  SECTORS_ON: "be-selective",
  INDEX_ONLY: "stand-down",
  RISK_OFF: "stand-down",
};

/** How far down the ranking the green extends: index, then sector, then name. */
export const PermissionLadder = z.object({
  index: z.boolean(),
  sectors: z.array(SectorLabel),
  names: z.enum(["none", "leaders_in_top_sectors", "green_sectors"]),
});
export type PermissionLadder = z.infer<typeof PermissionLadder>;

export const RegimeVerdict = z.object({
  verdict: RegimeVerdictCode,
  stance: Stance,
  line: z.string().min(1),
  since: IsoDate,
  /** A verdict the rules point to but hysteresis has not yet confirmed. */
  pending: RegimeVerdictCode.nullable(),
  index_sym: Symbol,
  index_above_sma50: z.boolean(),
  index_above_sma200: z.boolean(),
  breadth_50: z.number().min(0).max(100),
  breadth_200: z.number().min(0).max(100),
  ladder: PermissionLadder,
});
export type RegimeVerdict = z.infer<typeof RegimeVerdict>;
