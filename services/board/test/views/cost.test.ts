import { afterEach, describe, expect, it, vi } from "vitest";
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

/** True when a value JSON.stringify was asked to encode is a name record or holds one. */
function holdsNameRecord(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsNameRecord);
  if (value === null || typeof value !== "object") return false;
  const record = value as Record<string, unknown>;
  if (typeof record.sym === "string" && "opp_score" in record) return true;
  return Object.values(record).some((v) => typeof v === "object" && v !== null && holdsNameRecord(v));
}

describe("per-read cost of the parametrised views", () => {
  const read = readerOf(publicationOf());
  const syms = snapshot.board.names.slice(0, 10).map((r) => r.sym);
  const sym = syms.join(",");
  afterEach(() => vi.restoreAllMocks());

  it("a 10-symbol name read encodes no name record per read: the records were encoded once, at publication", () => {
    read.raw("name", { sym }); // the first read may build what later ones reuse
    const stringify = vi.spyOn(JSON, "stringify");
    read.raw("name", { sym });
    read.raw("name", { sym }, { encoding: "gzip" });
    read.raw("sector", { name: "semis" }, { encoding: "gzip" });
    const encodedRecords = stringify.mock.calls.filter(([value]) => holdsNameRecord(value));
    expect(encodedRecords).toEqual([]);
    // The detector itself sees a record, alone or inside what a view would encode.
    expect(holdsNameRecord(snapshot.board.names[0])).toBe(true);
    expect(holdsNameRecord({ names: snapshot.board.names.slice(0, 2) })).toBe(true);
  });

  it("a 10-symbol name read stays within a millisecond (measured, the figure printed)", () => {
    // The claim is the test above; this is the figure. Measured 12-25 µs on Node 20 and 17 µs on
    // Node 26, up to 100 µs under the whole suite; the bound is ten times that. A baseline such as
    // JSON.stringify of the same records is no yardstick: Node 26 encodes them four times faster.
    const identity = cost(() => read.raw("name", { sym }), 5000);
    const gzip = cost(() => read.raw("name", { sym }, { encoding: "gzip" }), 2000);
    const sector = cost(() => read.raw("sector", { name: "semis" }, { encoding: "gzip" }), 5000);
    console.log(`name x10: identity ${identity.toFixed(1)} µs, gzip ${gzip.toFixed(1)} µs; sector gzip ${sector.toFixed(1)} µs`);
    expect(identity).toBeLessThan(1000);
    expect(gzip).toBeLessThan(4000);
  });
});
