import type { Principal } from "@board/proto";
import { beforeEach, describe, expect, it } from "vitest";
import { ResolvedPrincipals } from "../../src/access/resolved-principals.js";

const T0 = Date.parse("2026-11-25T12:00:00Z");
let clockMs = T0;
const now = () => new Date(clockMs);
beforeEach(() => {
  clockMs = T0;
});

const principal = (tier: Principal["tier"], expiresAt: string | null): Principal => ({
  id: `${tier}:1`,
  tier,
  license_kind: tier === "free_key" || tier === "wallet" ? null : "scanner",
  expires_at: expiresAt,
});

describe("ResolvedPrincipals", () => {
  it("keeps a credential set of exactly one license key or one bearer, nothing else", () => {
    expect(ResolvedPrincipals.keyOf({ license_key: "lk_1" })).toBe("license lk_1");
    expect(ResolvedPrincipals.keyOf({ bearer: "eyJ" })).toBe("bearer eyJ");
    expect(ResolvedPrincipals.keyOf({ license_key: "lk_1", bearer: "eyJ" })).toBeNull();
    expect(ResolvedPrincipals.keyOf({ license_key: "lk_1", siwx: "x" })).toBeNull();
    expect(ResolvedPrincipals.keyOf({ board_key: "bk_1" })).toBeNull();
    expect(ResolvedPrincipals.keyOf({ siwx: "x" })).toBeNull();
  });

  it("answers a license principal until its expires_at, and not from that instant on", () => {
    const cache = new ResolvedPrincipals(now);
    const p = principal("scanner_license", "2026-11-25T13:00:00.000Z");
    cache.remember("license lk_1", p);
    clockMs = T0 + 3_599_999;
    expect(cache.get("license lk_1")).toEqual(p);
    clockMs = T0 + 3_600_000;
    expect(cache.get("license lk_1")).toBeUndefined();
    // Gone once lapsed: a renewal is found by asking identity again.
    clockMs = T0;
    expect(cache.get("license lk_1")).toBeUndefined();
  });

  it("keeps license, live-license and bearer principals only, and only those that lapse later", () => {
    const cache = new ResolvedPrincipals(now);
    const later = "2026-11-25T13:00:00.000Z";
    cache.remember("a", principal("free_key", later));
    cache.remember("b", principal("wallet", later));
    cache.remember("c", principal("bearer", null));
    cache.remember("d", principal("live_license", "2026-11-25T11:00:00.000Z"));
    cache.remember("e", principal("live_license", later));
    cache.remember("f", principal("bearer", later));
    expect(["a", "b", "c", "d", "e", "f"].map((k) => cache.get(k)?.tier ?? null)).toEqual([null, null, null, null, "live_license", "bearer"]);
  });

  it("holds at most 10,000 credentials, dropping the least recently used", () => {
    const cache = new ResolvedPrincipals(now);
    const p = principal("scanner_license", "2026-11-26T00:00:00.000Z");
    for (let i = 0; i < 10_000; i++) cache.remember(`k${i}`, p);
    expect(cache.get("k0")).toEqual(p); // k0 is now the most recently used
    cache.remember("k10000", p);
    expect(cache.get("k1")).toBeUndefined();
    expect(cache.get("k0")).toEqual(p);
    expect(cache.get("k10000")).toEqual(p);
  });
});
