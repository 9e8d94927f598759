import { z } from "zod";

// How a setup's levels are placed; shared by the lanes (book.ts) and the live tier (live.ts).

/** What a structural stop is set below: the pullback's low, or a multiple of ATR under the close. */
export const StopBasis = z.enum(["pullback_low", "atr"]);
export type StopBasis = z.infer<typeof StopBasis>;

/**
 * Where the entry window comes from: the 21-day EMA band of the pullback that triggered READY
 * (-0.5..+1.5 ATR around it on the trigger's bar), the pivot of the breakout that triggered it (the
 * prior 20-day high, up to 1 ATR above it), or, for a SETUP, the pivot a breakout must clear.
 */
export const EntryBasis = z.enum(["pullback_band", "breakout_pivot", "setup_pivot"]);
export type EntryBasis = z.infer<typeof EntryBasis>;
