import { describe, expect, it } from "vitest";
import { publicationOf, readerOf, snapshot } from "./support.js";

/**
 * Microseconds per call after a warm-up: the mean of the fastest of 20 rounds, so that other
 * processes sharing the cores (the suite runs projects side by side) do not count as our cost.
 */
function cost(f: () => unknown, n: number): number {
  for (let i = 0; i < n / 5; i++) f();
  const perRound = Math.ceil(n / 20);
  let best = Infinity;
  for (let round = 0; round < 20; round++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < perRound; i++) f();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1000 / perRound);
  }
  return best;
}

describe("per-read cost of the parametrised views", () => {
  const read = readerOf(publicationOf());
  const sym = snapshot.board.names.slice(0, 10).map((r) => r.sym).join(",");

  it("a 10-symbol name read costs well under 100 µs (no JSON encoding of names per read)", () => {
    const identity = cost(() => read.raw("name", { sym }), 5000);
    const gzip = cost(() => read.raw("name", { sym }, { encoding: "gzip" }), 2000);
    const sector = cost(() => read.raw("sector", { name: "semis" }, { encoding: "gzip" }), 5000);
    console.log(`name x10: identity ${identity.toFixed(1)} µs, gzip ${gzip.toFixed(1)} µs; sector gzip ${sector.toFixed(1)} µs`);
    // Measured about 19 µs identity and 55 µs gzip; the bounds leave room for a busy machine.
    expect(identity).toBeLessThan(100);
    expect(gzip).toBeLessThan(400);
  });
});
