/** Time as the scanner sees it: injectable, so a test can run a market week in seconds. */
export interface Clock {
  now(): Date;
  /** Resolves at `at` (at once if it has passed), or early when `signal` aborts. */
  sleepUntil(at: Date, signal: AbortSignal): Promise<void>;
}

// setTimeout overflows past ~24.8 days; long closures are waited out in steps.
const MAX_WAIT_MS = 6 * 3600 * 1000;

export const systemClock: Clock = {
  now: () => new Date(),
  sleepUntil: (at, signal) =>
    new Promise<void>((resolve) => {
      const step = () => {
        const wait = at.getTime() - Date.now();
        if (wait <= 0 || signal.aborted) return resolve();
        const timer = setTimeout(step, Math.min(wait, MAX_WAIT_MS));
        signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      };
      step();
    }),
};
