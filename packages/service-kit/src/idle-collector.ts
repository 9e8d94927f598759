import { performance } from "node:perf_hooks";

/** A check's event-loop utilization at or above this means the service worked since the last one. */
const WORKING_UTILIZATION = 0.05;
/**
 * When to collect again after the first collection of a return to idle, in ms from it. The first
 * frees the garbage; V8 (Node 26) pools the pages a collection frees and gives them back to the
 * system only at a later collection, some seconds later (--memory-pool-timeout=1 in the image).
 * Measured on Node 26.10.0, scanner-ingest after a scan: 200 MB before, 143 after the first two
 * collections (2 s apart), still 143 after collections 2 and 3 s later, 119 after one 5 s later,
 * and no less after more (117 to 119 MB is where it starts, before any scan).
 */
const LATER_COLLECTIONS_MS = [2_000, 8_000, 16_000] as const;

/** A function that says whether this thread's event loop worked (utilization at or above WORKING_UTILIZATION) since its last call. */
export function loopWorkedSince(): () => boolean {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const worked = performance.eventLoopUtilization(now, last).utilization >= WORKING_UTILIZATION;
    last = now;
    return worked;
  };
}

/**
 * Where node runs with --expose-gc (the images, npm start), a service that goes idle after
 * work collects its garbage, then again as LATER_COLLECTIONS_MS says. V8 otherwise keeps a heap
 * grown by a burst, and the pages its collections freed, until its memory reducer runs, and an idle
 * service may wait long for that: measured in the containers on Node 26.10.0, metering held
 * 148 MB 15 s after a burst of reads, with 24 MB of its 76 MB heap in use. Checked every
 * `everyMs`; one series of collections per return to idle, none while busy or idle throughout.
 * Returns a stop function; without --expose-gc it does nothing.
 */
export function collectWhenIdle(everyMs = 5_000, laterMs: readonly number[] = LATER_COLLECTIONS_MS, workedSince: () => boolean = loopWorkedSince()): () => void {
  const gc = globalThis.gc;
  if (!gc) return () => undefined;
  // Start-up is work: the first idle check after it collects.
  let worked = true;
  let later: NodeJS.Timeout[] = [];
  const collect = () => {
    gc();
    later = laterMs.map((ms) => setTimeout(() => gc(), ms).unref());
  };
  const check = setInterval(() => {
    if (workedSince()) {
      worked = true;
      return;
    }
    if (!worked) return;
    worked = false;
    // A series still running (work came back during it) is replaced, not doubled.
    later.forEach(clearTimeout);
    collect();
  }, everyMs).unref();
  return () => {
    clearInterval(check);
    later.forEach(clearTimeout);
  };
}
