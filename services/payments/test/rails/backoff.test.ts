import { describe, expect, it } from "vitest";
import { backoffDelay } from "../../src/rails/backoff.js";

const schedule = { initialMs: 500, maxMs: 30_000, jitter: 0.2 };

describe("backoffDelay", () => {
  it("doubles from the first wait to the cap (no jitter drawn)", () => {
    const waits = Array.from({ length: 10 }, (_, i) => backoffDelay(i + 1, schedule, () => 0));
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it("shortens each wait by up to the jitter share, never lengthens it", () => {
    expect(backoffDelay(1, schedule, () => 0.999_999)).toBe(400);
    expect(backoffDelay(7, schedule, () => 0.5)).toBe(27_000);
    for (let failures = 1; failures < 40; failures++) {
      const wait = backoffDelay(failures, schedule);
      const nominal = Math.min(30_000, 500 * 2 ** (failures - 1));
      expect(wait).toBeLessThanOrEqual(nominal);
      expect(wait).toBeGreaterThanOrEqual(nominal * 0.8);
    }
  });

  it("stays finite however long a backend is away", () => {
    expect(backoffDelay(10_000, schedule, () => 0)).toBe(30_000);
    expect(backoffDelay(10_000, { initialMs: 1, maxMs: 1, jitter: 0 })).toBe(1);
  });
});
