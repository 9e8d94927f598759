import { describe, expect, it } from "vitest";
import { preferredEncoding } from "../../src/http/encoding.js";

describe("preferredEncoding", () => {
  it.each([
    [undefined, "identity"],
    ["", "identity"],
    ["gzip", "gzip"],
    ["br, gzip;q=0.5", "gzip"],
    ["gzip;q=0", "identity"],
    ["deflate, br", "identity"],
    ["*", "gzip"],
    ["GZIP", "gzip"],
  ])("%s -> %s", (header, want) => {
    expect(preferredEncoding(header)).toBe(want);
  });
});
