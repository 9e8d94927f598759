import type { Clock } from "../../src/clock.js";

/** Time stands still at `at`; sleeping waits until the schedule is stopped. */
export function fixedClock(at: Date): Clock {
  return {
    now: () => at,
    sleepUntil: (_until, signal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true })),
  };
}

/**
 * Virtual time that jumps straight to whatever the schedule sleeps until, up to `end`;
 * `reachedEnd` resolves when the schedule first sleeps past it.
 */
export class FastForwardClock implements Clock {
  private t: Date;
  private endReached!: () => void;
  readonly reachedEnd = new Promise<void>((r) => (this.endReached = r));

  /** `beforeAdvance` runs before each jump: a test lets the consumers catch up first. */
  constructor(
    start: Date,
    private readonly end: Date,
    private readonly beforeAdvance: () => Promise<void> = async () => {},
  ) {
    this.t = start;
  }

  now = () => this.t;

  sleepUntil = async (at: Date, signal: AbortSignal) => {
    await this.beforeAdvance();
    if (at > this.end) {
      this.endReached();
      return new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    }
    if (at > this.t) this.t = at;
  };
}
