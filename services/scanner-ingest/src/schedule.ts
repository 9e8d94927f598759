import { addTradingDays, isMarketOpen, MORNING_LEAD_MINUTES, nextRefreshAt, runSlotsBetween, sessionOn, tradingDayOf } from "@board/market-calendar";
import type { Logger } from "@board/service-kit";
import type { Clock } from "./clock.js";

/** One scan to run: the moment it scores and the trading day it belongs to. */
export interface ScanSlot {
  at: Date;
  asofDaily: string;
  intraday: boolean;
}

/** Minutes between scans in market hours unless REFRESH_MINUTES says otherwise. */
export const DEFAULT_REFRESH_MINUTES = 5;
/** How many missed sessions a restart catches up with their closing boards. */
export const CATCH_UP_SESSIONS = 30;

/** The scan due at `at`: intraday while the market is open, else the latest session's data. */
export function slotAt(at: Date): ScanSlot {
  return { at, asofDaily: tradingDayOf(at), intraday: isMarketOpen(at) };
}

function closeSlot(day: string): ScanSlot {
  const session = sessionOn(day);
  if (!session) throw new Error(`no session on ${day}`);
  return { at: session.close, asofDaily: day, intraday: false };
}

/** The closing board of the session before the current trading day: what the free reads serve. */
export const previousCloseSlot = (now: Date): ScanSlot => closeSlot(addTradingDays(tradingDayOf(now), -1));

/** The first morning slot (MORNING_LEAD_MINUTES before a session's open) strictly after `at`. */
export function nextMorningAt(at: Date): Date {
  for (let day = tradingDayOf(at), i = 0; i < 15; i++, day = addTradingDays(day, 1)) {
    const open = sessionOn(day)?.open;
    if (!open) continue;
    const morning = new Date(open.getTime() - MORNING_LEAD_MINUTES * 60_000);
    if (morning > at) return morning;
  }
  throw new Error("no morning slot within 15 sessions");
}

/** When the next scan is due: the market-hours grid (including each close), or the next morning board. */
export function nextScanAt(at: Date, refreshMinutes: number): Date {
  const grid = nextRefreshAt(at, refreshMinutes);
  const morning = nextMorningAt(at);
  return morning < grid ? morning : grid;
}

/**
 * The scans a (re)start owes, given the last board it published: the closing board of every
 * session it missed (up to CATCH_UP_SESSIONS, so the daily history has no hole), then the
 * board of now. Missed intraday slots are superseded by the board of now, and the log says so.
 */
export function catchUpSlots(lastPublished: Date | null, now: Date, refreshMinutes: number, log?: Logger): ScanSlot[] {
  if (!lastPublished) return [previousCloseSlot(now), slotAt(now)];
  // A very old last board: look back no further than the sessions we would catch up anyway.
  const horizon = new Date(now.getTime() - (CATCH_UP_SESSIONS * 2 + 10) * 86_400_000);
  const missed = runSlotsBetween(lastPublished < horizon ? horizon : lastPublished, now, refreshMinutes);
  const closes = missed.filter((t) => !isMarketOpen(t) && sessionOn(tradingDayOf(t))?.close.getTime() === t.getTime());
  const owed = closes.slice(-CATCH_UP_SESSIONS).map((t) => closeSlot(tradingDayOf(t)));
  if (closes.length > CATCH_UP_SESSIONS) log?.warn({ sessions: closes.length - CATCH_UP_SESSIONS }, "older missed sessions are not caught up");
  const superseded = missed.length - closes.length;
  if (superseded > 0) log?.info({ slots: superseded }, "missed intraday slots superseded by the board of now");
  const last = owed.at(-1);
  if (!last || last.at.getTime() !== now.getTime()) owed.push(slotAt(now));
  return owed;
}

/**
 * Runs the owed scans, then one at every slot: every few minutes of market hours, at each
 * close, and each morning before the open. A scan is stamped with its slot time, so a
 * repeat of the same slot is the same board.
 */
export function startSchedule(opts: {
  scan: (slot: ScanSlot) => Promise<void>;
  clock: Clock;
  refreshMinutes: number;
  log: Logger;
  lastPublished: () => Promise<Date | null>;
  /** Told each slot the schedule waits for (for /metrics: a slot long past means it is stuck). */
  onNextScan?: (at: Date) => void;
}): { stop(): Promise<void>; ready: Promise<void> } {
  const abort = new AbortController();
  const run = async (slot: ScanSlot) => {
    try {
      await opts.scan(slot);
    } catch (err) {
      opts.log.error({ err, asof: slot.asofDaily, at: slot.at.toISOString() }, "scan failed");
    }
  };
  const ready = (async () => {
    const now = opts.clock.now();
    for (const slot of catchUpSlots(await opts.lastPublished(), now, opts.refreshMinutes, opts.log)) await run(slot);
  })();
  const loop = (async () => {
    await ready;
    while (!abort.signal.aborted) {
      const next = nextScanAt(opts.clock.now(), opts.refreshMinutes);
      opts.onNextScan?.(next);
      await opts.clock.sleepUntil(next, abort.signal);
      if (abort.signal.aborted) break;
      await run(slotAt(next));
    }
  })();
  return {
    ready,
    stop: async () => {
      abort.abort();
      await loop.catch(() => undefined);
    },
  };
}
