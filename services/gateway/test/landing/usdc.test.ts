import { describe, expect, it } from "vitest";
import { formatUsdc } from "../../src/landing/usdc.js";

describe("formatUsdc", () => {
  it.each([
    [250000n, "0.25"],
    [5000n, "0.005"],
    [20000n, "0.02"],
    [1n, "0.000001"],
    [0n, "0.00"],
    [1000000n, "1.00"],
    [1234567n, "1.234567"],
    // Beyond 2^53: a float would lose the last digits.
    [9007199254740993123n, "9007199254740.993123"],
  ])("%s base units -> %s", (units, want) => {
    expect(formatUsdc(units)).toBe(want);
  });

  it("refuses a negative amount", () => {
    expect(() => formatUsdc(-1n)).toThrow(RangeError);
  });
});
