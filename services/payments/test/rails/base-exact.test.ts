import { describe, expect, it } from "vitest";
import { eip3009Authorization } from "../../src/rails/base-exact.js";
import { isMalformedInput } from "../../src/rails/malformed-input.js";

const authorization = {
  from: `0x${"a".repeat(40)}`,
  to: `0x${"b".repeat(40)}`,
  value: "5000",
  validAfter: "0",
  validBefore: "1900000000",
  nonce: `0x${"c".repeat(64)}`,
};
const payload = (a: Record<string, unknown>) => ({ x402Version: 2, payload: { authorization: a, signature: "0x" } }) as never;

describe("eip3009Authorization", () => {
  it("reads a well-formed authorization", () => {
    expect(eip3009Authorization(payload(authorization))).toEqual({ from: authorization.from, nonce: authorization.nonce, validBefore: 1_900_000_000n });
  });
  it.each([
    ["value", "x"],
    ["value", "1.5"],
    ["validAfter", "-1"],
    ["validBefore", 1900000000],
    ["validBefore", "1".repeat(79)],
    ["to", "0x1234"],
    ["from", undefined],
    ["nonce", "0x00"],
  ])("refuses %s = %j (the facilitator would fail on it as if the chain were away)", (field, value) => {
    expect(eip3009Authorization(payload({ ...authorization, [field]: value }))).toBeNull();
  });
});

describe("isMalformedInput", () => {
  it("tells a client's malformed value from a failure of ours", () => {
    expect(isMalformedInput(new SyntaxError("Cannot convert x to a BigInt"))).toBe(true);
    expect(isMalformedInput(new RangeError("bad"))).toBe(true);
    expect(isMalformedInput(Object.assign(new Error("[]"), { name: "$ZodError" }))).toBe(true);
    expect(isMalformedInput(Object.assign(new Error("[]"), { name: "ZodError" }))).toBe(true);
    expect(isMalformedInput(new Error("fetch failed"))).toBe(false);
    expect(isMalformedInput(new TypeError("x is undefined"))).toBe(false);
  });
});
