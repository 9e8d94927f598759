import { performance } from "node:perf_hooks";

/** A check's event-loop utilization at or above this means the service worked since the last one. */
const WORKING_UTILIZATION = 0.05;
/** The pages a collection frees are given back by V8 (Node 26) only at a later collection past its pool timeout (--memory-pool-timeout=1 in the image). */
const SECOND_COLLECTION_MS = 2_000;

/**
 * Where node runs with --expose-gc (the images, npm start), a service that goes idle after
 * work collects its garbage, twice a couple of seconds apart. V8 otherwise keeps a heap grown
 * by a burst, and the pages its collections freed, until its memory reducer runs, and an idle
 * service may wait long for that: measured in the containers on Node 26.10.0, metering held
 * 148 MB 15 s after a burst of reads, with 24 MB of its 76 MB heap in use. Checked every
 * `everyMs`; one collection pair per return to idle, none while busy or idle throughout.
 * Returns a stop function; without --expose-gc it does nothing.
 */
export function collectWhenIdle(everyMs = 5_000, secondAfterMs = SECOND_COLLECTION_MS): () => void {
  const gc = globalThis.gc;
  if (!gc) return () => undefined;
  let last = performance.eventLoopUtilization();
  // Start-up is work: the first idle check after it collects.
  let worked = true;
  let second: NodeJS.Timeout | null = null;
  const check = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization >= WORKING_UTILIZATION;
    last = now;
    if (busy) {
      worked = true;
      return;
    }
    if (!worked) return;
    worked = false;
    gc();
    second = setTimeout(() => gc(), secondAfterMs).unref();
  }, everyMs).unref();
  return () => {
    clearInterval(check);
    if (second) clearTimeout(second);
  };
}
