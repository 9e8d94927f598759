import { addTradingDays, isMarketOpen, nextRefreshAt, sessionOn, tradingDayOf } from "@board/market-calendar";
import type { Logger } from "@board/service-kit";

/** One scan to run: the moment it scores and the trading day it belongs to. */
export interface ScanSlot {
  at: Date;
  asofDaily: string;
  intraday: boolean;
}

/** The scan due at `at`: intraday while the market is open, else the latest session's close data. */
export function slotAt(at: Date): ScanSlot {
  return { at, asofDaily: tradingDayOf(at), intraday: isMarketOpen(at) };
}

/**
 * The closing board of the session before the current trading day: the free reads serve
 * it (one day delayed). Deterministic, so publishing it again is a duplicate, not a new board.
 */
export function previousCloseSlot(now: Date): ScanSlot {
  const day = addTradingDays(tradingDayOf(now), -1);
  const session = sessionOn(day);
  if (!session) throw new Error(`no session on ${day}`);
  return { at: session.close, asofDaily: day, intraday: false };
}

/**
 * Runs a scan at start (the previous close, then now) and then at every refresh slot of
 * market hours: every few minutes while open, at the close, and at the next open.
 */
export function startSchedule(opts: {
  scan: (slot: ScanSlot) => Promise<void>;
  now: () => Date;
  refreshMinutes: number;
  log: Logger;
}): { stop(): void; ready: Promise<void> } {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const run = async (slot: ScanSlot) => {
    try {
      await opts.scan(slot);
    } catch (err) {
      opts.log.error({ err, asof: slot.asofDaily }, "scan failed");
    }
  };
  const arm = () => {
    if (stopped) return;
    const now = opts.now();
    const next = nextRefreshAt(now, opts.refreshMinutes);
    // Timers are capped near 24.8 days; re-arm rather than overflow across long closures.
    const wait = Math.min(next.getTime() - now.getTime(), 6 * 3600 * 1000);
    timer = setTimeout(() => {
      void (async () => {
        const at = opts.now();
        if (at.getTime() >= next.getTime()) await run(slotAt(at));
        arm();
      })();
    }, Math.max(0, wait));
  };
  const ready = (async () => {
    const now = opts.now();
    await run(previousCloseSlot(now));
    await run(slotAt(now));
    arm();
  })();
  return {
    ready,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
