import { afterEach, describe, expect, it } from "vitest";
import { collectWhenIdle, loopWorkedSince } from "../src/idle-collector.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Keeps the event loop busy for `ms`. */
const work = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

const exposed = globalThis.gc;
afterEach(() => {
  globalThis.gc = exposed;
});

describe("collectWhenIdle", () => {
  it("does nothing where node runs without --expose-gc", () => {
    globalThis.gc = undefined;
    const stop = collectWhenIdle(10);
    expect(typeof stop).toBe("function");
    stop();
  });

  it("collects when the service goes idle after work, and again at the later times, once per return to idle, never while busy", async () => {
    // The loop's work as the check sees it, set by the test: this file's own loop on a loaded
    // machine is not reliably idle for a whole check (the sampler is checked on its own below).
    let working = false;
    const collections: number[] = [];
    globalThis.gc = (() => void collections.push(performance.now())) as typeof globalThis.gc;
    const stop = collectWhenIdle(100, [150, 300], () => working);
    try {
      // Start-up counts as work: the first idle check collects, and again 150 ms and 300 ms later.
      await sleep(800);
      expect(collections).toHaveLength(3);
      expect(collections[1]! - collections[0]!).toBeGreaterThanOrEqual(140);
      expect(collections[2]! - collections[1]!).toBeGreaterThanOrEqual(140);
      // Idle throughout: nothing more.
      await sleep(400);
      expect(collections).toHaveLength(3);
      // Busy for several checks (no collection meanwhile), then idle: one more series.
      working = true;
      await sleep(450);
      expect(collections).toHaveLength(3);
      working = false;
      await sleep(900);
      expect(collections).toHaveLength(6);
    } finally {
      stop();
    }
  });

  it("takes work as the event loop's utilization since the last check", async () => {
    const workedSince = loopWorkedSince();
    work(60);
    expect(workedSince()).toBe(true);
    // Idle (measured 1-2% utilization in a test worker at rest; the first window after work can hold its tail).
    await sleep(300);
    workedSince();
    await sleep(300);
    expect(workedSince()).toBe(false);
  });
});
