import type { PaymentRails, PaymentsMode, RailName, RailState, RailStates } from "@board/proto";
import type { Logger } from "@board/service-kit";
import { backoffDelay, type BackoffSchedule } from "./backoff.js";
import { BringUpTimeout, causeOf, reasonOf, type RailReason } from "./backend-failure.js";

/** A configured rail as the watch sees it: its name and how it is brought up. */
export interface WatchedRail {
  name: RailName;
  /** Asks its backend and readies its offers; rejects while the backend does not answer. */
  bringUp(): Promise<void>;
}

export interface RailWatchOptions {
  mode: PaymentsMode;
  schedule: BackoffSchedule;
  /** One bring-up's time limit: a backend that holds the connection is no answer either. */
  timeoutMs: number;
  log: Logger;
  /** Told every change of a rail's state, never an ask that changed nothing. */
  onChange?: (rails: PaymentRails) => void;
  /** [0, 1): the jitter of the backoff (tests fix it). */
  random?: () => number;
}

const OFF: RailStates = { base: "off", solana: "off", algorand: "off", batched: "off", mpp: "off" };

/**
 * Which configured rails are offered. A rail is `live` once its backend answered, `down` while
 * it does not (asked again on a backoff schedule until it does), `off` when not configured.
 * Only reachability is waited out here: a malformed configuration has already stopped the
 * service (env.ts, the rails' constructors). A rail once live stays live: a later outage shows
 * in its payments' verification and settlement (503, claims left for reconciliation).
 */
export class RailWatch {
  private readonly states: RailStates = { ...OFF };
  /** The state each rail was last logged in (none before its first outcome). */
  private readonly announced = new Map<RailName, RailState>();
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
    for (const rail of rails) this.states[rail.name] = "down";
    if (rails.length) this.opts.onChange?.(this.report());
    await Promise.all(rails.map((rail) => this.attempt(rail, 0)));
  }

  isLive(name: RailName): boolean {
    return this.states[name] === "live";
  }

  report(): PaymentRails {
    return { mode: this.opts.mode, rails: { ...this.states } };
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async attempt(rail: WatchedRail, failures: number): Promise<void> {
    if (this.stopped) return;
    try {
      await withTimeout(rail.bringUp(), this.opts.timeoutMs);
    } catch (err) {
      if (this.stopped) return;
      const delay = backoffDelay(failures + 1, this.opts.schedule, this.opts.random);
      const fields = { rail: rail.name, state: "down", reason: reasonOf(err), ...causeOf(err), retry_in_ms: delay };
      if (this.enter(rail.name, "down")) this.opts.log.warn(fields, "payment rail down: not offered until its backend answers");
      else this.opts.log.debug({ ...fields, failures: failures + 1 }, "payment rail still down");
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.attempt(rail, failures + 1);
      }, delay);
      // The bus connection keeps the process alive; a pending retry must not.
      timer.unref();
      this.timers.add(timer);
      return;
    }
    if (this.stopped) return;
    // Live at the first ask is said once for every rail by the caller's start line; a rail that comes back, here.
    if (this.enter(rail.name, "live") && failures > 0)
      this.opts.log.info({ rail: rail.name, state: "live", reason: "backend_answered" satisfies RailReason, failures }, "payment rail live: offered");
  }

  /** Records a rail's state; true when it is news for the log (a state the rail was not last logged in). */
  private enter(name: RailName, state: RailState): boolean {
    if (this.states[name] !== state) {
      this.states[name] = state;
      this.opts.onChange?.(this.report());
    }
    if (this.announced.get(name) === state) return false;
    this.announced.set(name, state);
    return true;
  }
}

/** `promise`, or a BringUpTimeout after `ms`; a late outcome of `promise` is dropped. */
function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  promise.catch(() => undefined);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BringUpTimeout(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
