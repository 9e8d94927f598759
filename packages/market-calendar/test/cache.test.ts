import { describe, expect, it } from "vitest";
import { BoundedCache } from "../src/cache.js";

describe("BoundedCache", () => {
  it("evicts the oldest entry beyond its cap", () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("a", 10); // update in place, no eviction
    cache.set("c", 3);
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBe(2);
    expect(cache.get("c")).toBe(3);
  });
});
