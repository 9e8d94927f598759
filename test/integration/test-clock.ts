import type { Clock } from "../../services/scanner-ingest/src/clock.js";

/**
 * Time that runs `speed` times faster than the wall clock from `anchor` (the clock reads
 * `anchor` at wall time `t0`), shared by processes: the same three values give every process
 * the same time. The alerts test runs the scanner and the board on it at the speed its
 * Prometheus rules are compressed by, so a market-hours minute passes in a wall second on both
 * sides.
 */
export class AcceleratedClock implements Clock {
  constructor(
    readonly anchor: Date,
    readonly speed: number,
    readonly t0: number = Date.now(),
  ) {
    if (!(speed >= 1)) throw new Error(`speed must be at least 1, not ${speed}`);
  }

  now = (): Date => new Date(this.anchor.getTime() + (Date.now() - this.t0) * this.speed);

  sleepUntil = (at: Date, signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      const step = () => {
        const wait = (at.getTime() - this.now().getTime()) / this.speed;
        if (wait <= 0 || signal.aborted) return resolve();
        const timer = setTimeout(step, Math.min(wait, 60_000));
        signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      };
      step();
    });

  /** The arguments another process rebuilds this clock from (fromArgs): anchor, speed, t0. */
  args(): string[] {
    return [this.anchor.toISOString(), String(this.speed), String(this.t0)];
  }

  static fromArgs([anchor, speed, t0]: readonly string[]): AcceleratedClock {
    if (!anchor || !speed || !t0) throw new Error("usage: <anchor ISO time> <speed> <t0 epoch ms>");
    return new AcceleratedClock(new Date(anchor), Number(speed), Number(t0));
  }
}
