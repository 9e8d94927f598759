/** When a rail whose backend did not answer is asked again (PaymentsEnv's RAIL_RETRY_*). */
export interface BackoffSchedule {
  /** The wait after the first failed ask, in milliseconds. */
  initialMs: number;
  /** The longest wait, in milliseconds. */
  maxMs: number;
  /** Each wait is shortened by up to this share of itself, at random (0: none, 1: down to nothing). */
  jitter: number;
}

/**
 * The wait before ask number `failures + 1`, after `failures` (>= 1) failed asks: initialMs
 * doubled per further failure up to maxMs, less up to `jitter` of it so that replicas started
 * together do not ask a recovering backend in step. `random` is in [0, 1).
 */
export function backoffDelay(failures: number, schedule: BackoffSchedule, random: () => number = Math.random): number {
  const doublings = Math.max(0, Math.min(failures - 1, 52));
  const nominal = Math.min(schedule.maxMs, schedule.initialMs * 2 ** doublings);
  return Math.round(nominal * (1 - schedule.jitter * random()));
}
