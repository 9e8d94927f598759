import type { FreshnessBlock } from "@board/proto";

/** Scans the scanner may miss before the board says so: one late scan is not yet stale. */
export const STALE_AFTER_SCANS = 3;

/**
 * The status view's "stale", from the current snapshot's freshness block: the market is open
 * and the served snapshot is older than STALE_AFTER_SCANS scan intervals, so the scanner has
 * stopped publishing (or, in the first minutes of a session, has not published yet). Outside
 * market hours the board is not expected to change, so an old snapshot is not stale.
 */
export const staleBlock = (f: FreshnessBlock, refreshMinutes: number): boolean => f.market_open && f.data_age_seconds > STALE_AFTER_SCANS * refreshMinutes * 60;

/**
 * A stale board's freshness block says so in its poll hint: "refreshes about every 5 minutes"
 * would be untrue while the scanner is behind. The other fields are already honest.
 */
export function honestFreshness(f: FreshnessBlock, refreshMinutes: number): FreshnessBlock {
  if (!staleBlock(f, refreshMinutes)) return f;
  const minutes = Math.floor(f.data_age_seconds / 60);
  return {
    ...f,
    poll_hint: `The market is open but the board has not refreshed for ${minutes} minutes (it should every ${refreshMinutes}): the scores are as of computed_at. Poll /api/board/state and buy again only when it changes.`,
  };
}
