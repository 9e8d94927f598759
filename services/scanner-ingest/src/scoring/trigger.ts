// The READY trigger, the light and days in state, read off a name's recent state history
// (SCORING.md: "Light: firing when the READY trigger happened on today's or yesterday's bar").

import type { EntryState, Light, Trigger } from "@board/proto";

/** One bar of a name's history as the trigger reads it; `state` null where the bar does not exist. */
export type StateBar = { state: EntryState | null; breakout: boolean };

export type TriggerRead = {
  /** Index (into the history) of the current trigger's bar, or -1. */
  at: number;
  trigger: Trigger | null;
  light: Light;
  /** Consecutive bars ending with the last whose state is the last one's (at least 1). */
  daysInState: number;
};

/**
 * A trigger happens on bar t when the name is READY there and either entered READY on it (bar
 * t - 1 was not READY) or broke out on it while READY. The first bar of the history has no
 * predecessor, so it only serves as one.
 */
export function isTrigger(h: readonly StateBar[], t: number): boolean {
  const b = h[t];
  if (!b || b.state !== "READY" || t < 1) return false;
  return h[t - 1]!.state !== "READY" || b.breakout;
}

/**
 * `history` runs oldest first and ends with today's bar. The current trigger is the latest trigger
 * within the READY run that holds today, or within the one that ended yesterday (a name that fell
 * out of READY today still fired yesterday). Firing when that trigger is on today's or yesterday's
 * bar. A breakout trigger is named so even when it was also the bar that entered READY.
 */
export function triggerOf(history: readonly StateBar[]): TriggerRead {
  const last = history.length - 1;
  const today = history[last]?.state ?? null;
  let days = 0;
  for (let t = last; t >= 1 && history[t]!.state === today && today !== null; t--) days++;

  let runEnd = -1;
  if (today === "READY") runEnd = last;
  else if (last >= 1 && history[last - 1]!.state === "READY") runEnd = last - 1;
  let at = -1;
  for (let t = runEnd; t >= 1 && history[t]!.state === "READY"; t--) {
    if (isTrigger(history, t)) {
      at = t;
      break;
    }
  }
  return {
    at,
    trigger: at < 0 ? null : history[at]!.breakout ? "breakout" : "pullback",
    light: at >= 0 && at >= last - 1 ? "firing" : "cold",
    daysInState: Math.max(1, days),
  };
}
