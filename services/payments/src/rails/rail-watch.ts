import type { PaymentRails, PaymentsMode, RailDownReason, RailName, RailSettlement, RailState, RailStates, RailWarning } from "@board/proto";
import type { Logger } from "@board/service-kit";
import { backoffDelay, type BackoffSchedule } from "./backoff.js";
import { BringUpTimeout, causeOf, RailCheckFailed, reasonOf, type RailReason } from "./backend-failure.js";

/** What a rail that came up says of itself: what limits it, and how it settles (Base). */
export interface RailNotes {
  warnings?: readonly RailWarning[];
  settlement?: RailSettlement;
}

/** A configured rail as the watch sees it: its name and how it is brought up. */
export interface WatchedRail {
  name: RailName;
  /**
   * Asks its backend, checks what the rail needs of it and readies its offers; rejects while
   * the backend does not answer, or answers without what the rail needs (RailCheckFailed).
   */
  bringUp(): Promise<RailNotes | void>;
}

export interface RailWatchOptions {
  mode: PaymentsMode;
  schedule: BackoffSchedule;
  /** One bring-up's time limit: a backend that holds the connection is no answer either. */
  timeoutMs: number;
  log: Logger;
  /** Told every change of a rail's state, reason or notes, never an ask that changed nothing. */
  onChange?: (rails: PaymentRails) => void;
  /** [0, 1): the jitter of the backoff (tests fix it). */
  random?: () => number;
}

const OFF: RailStates = { base: "off", solana: "off", algorand: "off", batched: "off", mpp: "off" };
const RAIL_NAMES = Object.keys(OFF) as RailName[];

/**
 * Which configured rails are offered. A rail is `live` once its backend answered with what the
 * rail needs, `down` while it does not (with the reason; asked again on a backoff schedule until
 * it does), `off` when not configured. A malformed configuration has already stopped the
 * service (env.ts, the rails' constructors); what only the backend can tell (its chain, its
 * token, the facilitator's funds) is checked here, at each bring-up. A rail once live stays
 * live, unless it is taken down for something found lacking while offered (`takeDown`: its
 * facilitator can no longer pay fees); a later outage shows in its payments (503, claims left
 * for reconciliation).
 */
export class RailWatch {
  private readonly states: RailStates = { ...OFF };
  /** Why each rail that is down is down. */
  private readonly reasons = new Map<RailName, RailDownReason>();
  /** What each live rail said of itself when it came up, and warnings set since. */
  private readonly notes = new Map<RailName, RailNotes>();
  /** The state and reason each rail was last logged in (none before its first outcome). */
  private readonly announced = new Map<RailName, string>();
  private readonly watched = new Map<RailName, WatchedRail>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly opts: RailWatchOptions) {}

  /**
   * Brings every rail up at once and resolves when each has come up or failed once, so the
   * first 402 already offers every rail that answers; those that failed are retried in the
   * background.
   */
  async start(rails: readonly WatchedRail[]): Promise<void> {
    // Down until they answered: not offered yet.
    for (const rail of rails) {
      this.states[rail.name] = "down";
      this.watched.set(rail.name, rail);
    }
    if (rails.length) this.opts.onChange?.(this.report());
    await Promise.all(rails.map((rail) => this.attempt(rail, 0)));
  }

  isLive(name: RailName): boolean {
    return this.states[name] === "live";
  }

  report(): PaymentRails {
    const reasons: Partial<Record<RailName, RailDownReason>> = {};
    const warnings: Partial<Record<RailName, RailWarning[]>> = {};
    const settlement: Partial<Record<RailName, RailSettlement>> = {};
    // In the rails' own order, whichever came up first: the same state reads the same.
    for (const name of RAIL_NAMES) {
      const reason = this.reasons.get(name);
      const notes = this.notes.get(name);
      if (reason) reasons[name] = reason;
      if (notes?.warnings?.length) warnings[name] = [...notes.warnings];
      if (notes?.settlement) settlement[name] = notes.settlement;
    }
    return { mode: this.opts.mode, rails: { ...this.states }, reasons, warnings, settlement };
  }

  /**
   * A live rail found lacking while offered (its facilitator can no longer pay fees): not
   * offered from now on, and brought up again on the backoff schedule, whose check says when it
   * may be offered again.
   */
  takeDown(name: RailName, err: RailCheckFailed): void {
    const rail = this.watched.get(name);
    if (!rail || this.stopped || this.states[name] !== "live") return;
    this.fail(rail, err, 0);
  }

  /** Sets or clears a warning of a live rail (a facilitator's balance below its floor, say). */
  warn(name: RailName, warning: RailWarning, on: boolean): void {
    const notes = this.notes.get(name);
    if (!notes || this.states[name] !== "live") return;
    const had = notes.warnings?.includes(warning) ?? false;
    if (had === on) return;
    const warnings = on ? [...(notes.warnings ?? []), warning] : (notes.warnings ?? []).filter((w) => w !== warning);
    this.notes.set(name, { ...notes, warnings });
    this.opts.onChange?.(this.report());
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async attempt(rail: WatchedRail, failures: number): Promise<void> {
    if (this.stopped) return;
    let notes: RailNotes | void;
    try {
      notes = await withTimeout(rail.bringUp(), this.opts.timeoutMs);
    } catch (err) {
      if (!this.stopped) this.fail(rail, err, failures);
      return;
    }
    if (this.stopped) return;
    // Live at the first ask is said once for every rail by the caller's start line; a rail that comes back, here.
    if (this.enter(rail.name, "live", null, notes ?? {}) && failures > 0)
      this.opts.log.info({ rail: rail.name, state: "live", reason: "backend_answered" satisfies RailReason, failures, ...notes }, "payment rail live: offered");
  }

  /** Down for `err`: said when it is news (a state or reason the rail was not last logged in), asked again after the backoff. */
  private fail(rail: WatchedRail, err: unknown, failures: number): void {
    const delay = backoffDelay(failures + 1, this.opts.schedule, this.opts.random);
    const reason = reasonOf(err);
    const checked = err instanceof RailCheckFailed;
    // What the check found (chain ids, addresses, amounts) or the backend's safe cause; never the error's text.
    const fields = { ...(checked ? err.fields : causeOf(err)), rail: rail.name, state: "down", reason, retry_in_ms: delay };
    if (this.enter(rail.name, "down", reason)) this.opts.log.warn(fields, checked ? `payment rail down: ${err.message}` : "payment rail down: not offered until its backend answers");
    else this.opts.log.debug({ ...fields, failures: failures + 1 }, "payment rail still down");
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(rail, failures + 1);
    }, delay);
    // The bus connection keeps the process alive; a pending retry must not.
    timer.unref();
    this.timers.add(timer);
  }

  /** Records a rail's state; true when it is news for the log (a state and reason the rail was not last logged in). */
  private enter(name: RailName, state: RailState, reason: RailDownReason | null, notes: RailNotes | null = null): boolean {
    const before = JSON.stringify([this.states[name], this.reasons.get(name), this.notes.get(name)]);
    this.states[name] = state;
    if (reason) this.reasons.set(name, reason);
    else this.reasons.delete(name);
    if (notes) this.notes.set(name, notes);
    else this.notes.delete(name);
    if (JSON.stringify([state, this.reasons.get(name), this.notes.get(name)]) !== before) this.opts.onChange?.(this.report());
    const said = `${state}:${reason ?? ""}`;
    if (this.announced.get(name) === said) return false;
    this.announced.set(name, said);
    return true;
  }
}

/** `promise`, or a BringUpTimeout after `ms`; a late outcome of `promise` is dropped. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => undefined);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BringUpTimeout(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
