// The "freshness block" the gateway attaches to every board read: is the market open, how old is
// the data, when will it next change, and what a client should do about it. Called on every read,
// so it only touches cached per-date facts and memoises the one ISO string that changes rarely.

import { dayInfoOf, newYorkEpochDay, type DayInfo } from "./day-info.js";
import { cadenceStepMs, MORNING_LEAD_MINUTES, nextBoardMs } from "./schedule.js";
import { formatNewYork, millisOf } from "./time.js";

/** How late the board's prices were when it was computed (the proto's DataDelay). */
export type DataDelay = "real_time" | "delayed_15m" | "end_of_day" | "simulated" | "recorded";

export type FreshnessBlock = {
  market_open: boolean;
  data_age_seconds: number;
  next_refresh_at: string;
  poll_hint: string;
  data_delay?: DataDelay;
};

export type FreshnessHeaders = {
  "X-Board-Market-Open": "true" | "false";
  "X-Board-Next-Refresh": string;
  "X-Board-Data-Age": string;
  "X-Board-Data-Delay"?: DataDelay;
};

/** What a delay means for a reader, said after the poll hint (nothing for real-time or simulated prices: the board says the latter). */
const DELAY_HINTS: Readonly<Record<DataDelay, string>> = {
  real_time: "",
  simulated: "",
  delayed_15m: " Prices come from a 15-minute delayed feed: the board is 15 minutes older than data_age_seconds says.",
  end_of_day: " Prices are end-of-day bars: the board changes with each close, not during the session.",
  recorded: " Prices are recorded vendor responses replayed, not live data.",
};

// next_refresh_at changes once per cadence slot, so one memoised string serves thousands of reads.
let memoMs = Number.NaN;
let memoIso = "";

function isoNewYork(ms: number): string {
  if (ms !== memoMs) {
    memoIso = formatNewYork(new Date(ms));
    memoMs = ms;
  }
  return memoIso;
}

/** Why the market is shut at `ms`, as the start of a sentence. */
function shutReason(day: DayInfo, ms: number): string {
  if (day.holiday !== null) return `The market is closed for ${day.holiday}`;
  const s = day.session;
  if (s === null) return "The market is closed for the weekend";
  if (ms < s.openMs) return "The market has not opened yet today";
  if (s.early) return "The market closed early today (1:00 pm ET)";
  return "The market has closed for the day";
}

/** The block for a read at `now` of a board computed at `computedAt`; `dataDelay` is its provider's delay, when the board says it. */
export function freshnessAt(now: Date, computedAt: Date, cadenceMinutes = 5, dataDelay?: DataDelay): FreshnessBlock {
  const nowMs = millisOf(now, "now");
  const computedMs = millisOf(computedAt, "computedAt");
  const stepMs = cadenceStepMs(cadenceMinutes);

  const day = dayInfoOf(newYorkEpochDay(nowMs));
  const s = day.session;
  const open = s !== null && s.openMs <= nowMs && nowMs < s.closeMs;
  const nextBoard = nextBoardMs(nowMs, stepMs);
  const next = isoNewYork(nextBoard.ms);
  const every = cadenceMinutes === 1 ? "every minute" : `every ${cadenceMinutes} minutes`;

  const block: FreshnessBlock = {
    market_open: open,
    // Clock skew between writer and reader must not produce a negative age.
    data_age_seconds: Math.max(0, Math.floor((nowMs - computedMs) / 1000)),
    next_refresh_at: next,
    poll_hint: open
      ? `The market is open and the board refreshes about ${every}: poll /api/board/state and buy again only after next_refresh_at (${next}).`
      : nextBoard.morning
        ? `${shutReason(day, nowMs)}; the next board is the morning board at next_refresh_at (${next}), ${MORNING_LEAD_MINUTES} minutes before the open, so do not buy again before then.`
        : `${shutReason(day, nowMs)}, so the board does not change before next_refresh_at (${next}); do not buy again before then.`,
  };
  if (dataDelay) {
    block.poll_hint += DELAY_HINTS[dataDelay];
    block.data_delay = dataDelay;
  }
  return block;
}

/** The block as HTTP response headers. */
export function freshnessHeaders(block: FreshnessBlock): FreshnessHeaders {
  const headers: FreshnessHeaders = {
    "X-Board-Market-Open": block.market_open ? "true" : "false",
    "X-Board-Next-Refresh": block.next_refresh_at,
    "X-Board-Data-Age": String(block.data_age_seconds),
  };
  if (block.data_delay) headers["X-Board-Data-Delay"] = block.data_delay;
  return headers;
}
