import { until } from "./harness.js";

/**
 * A count that lands asynchronously (metering folds served-read events in batches), once it has
 * settled: waits until it reaches `atLeast`, then until it stays unchanged over `holdMs`, and
 * returns it. The caller asserts the figure; one that overshoots settles above it and fails there.
 */
export async function settledCount(count: () => Promise<number>, o: { atLeast: number; holdMs: number; timeoutMs?: number }): Promise<number> {
  await until(async () => (await count()) >= o.atLeast, o.timeoutMs);
  for (let last = await count(); ; ) {
    await new Promise((r) => setTimeout(r, o.holdMs));
    const now = await count();
    if (now === last) return now;
    last = now;
  }
}
