import { RESOLVED_PRINCIPAL_CACHE_SECONDS, type Principal } from "@board/proto";
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
  it("keeps a credential set of exactly one license key, one bearer, one board key or one sign-in", () => {
    expect(ResolvedPrincipals.keyOf({ license_key: "lk_1" })).toBe("license lk_1");
    expect(ResolvedPrincipals.keyOf({ bearer: "eyJ" })).toBe("bearer eyJ");
    expect(ResolvedPrincipals.keyOf({ license_key: "lk_1", bearer: "eyJ" })).toBeNull();
    expect(ResolvedPrincipals.keyOf({ license_key: "lk_1", siwx: "x" })).toBeNull();
    expect(ResolvedPrincipals.keyOf({ board_key: "bk_1" })).toBe("key bk_1");
    expect(ResolvedPrincipals.keyOf({ board_key: "bk_1", license_key: "lk_1" })).toBeNull();
    expect(ResolvedPrincipals.keyOf({ board_key: "bk_1", siwx: "x" })).toBeNull();
    expect(ResolvedPrincipals.keyOf({ siwx: "x", bearer: "eyJ" })).toBeNull();
    // A sign-in is kept under a digest of the whole header, per resource.
    const signIn = ResolvedPrincipals.keyOf({ siwx: "eyJzaWduZWQiOiJoZWFkZXIifQ" });
    expect(signIn).toMatch(/^siwx [A-Za-z0-9_-]{43}$/);
    expect(ResolvedPrincipals.keyOf({ siwx: "eyJzaWduZWQiOiJoZWFkZXIifR" })).not.toBe(signIn);
    expect(ResolvedPrincipals.keyOf({ siwx: "eyJzaWduZWQiOiJoZWFkZXIifQ" }, "mcp_live")).toBe(`siwx@mcp_live ${signIn!.slice(5)}`);
  });

  it("answers a wallet sign-in for the lifetime, never past its session's end, and only as a wallet", () => {
    const cache = new ResolvedPrincipals(now);
    const key = ResolvedPrincipals.keyOf({ siwx: "header" })!;
    const session = principal("wallet", new Date(T0 + 1500).toISOString());
    cache.remember(key, session);
    clockMs = T0 + 1499;
    expect(cache.get(key)).toEqual(session);
    clockMs = T0 + 1500;
    expect(cache.get(key)).toBeUndefined();
    // A long session is answered for the lifetime only.
    clockMs = T0;
    const long = principal("wallet", "2026-11-25T13:00:00.000Z");
    cache.remember(key, long);
    clockMs = T0 + RESOLVED_PRINCIPAL_CACHE_SECONDS * 1000;
    expect(cache.get(key)).toBeUndefined();
    // Never kept: a sign-in without an end, or one identity answered with another tier.
    clockMs = T0;
    cache.remember(key, principal("wallet", null));
    expect(cache.get(key)).toBeUndefined();
    cache.remember(key, principal("free_key", "2026-11-25T13:00:00.000Z"));
    expect(cache.get(key)).toBeUndefined();
  });

  it("answers a license principal for RESOLVED_PRINCIPAL_CACHE_SECONDS, never past its expires_at", () => {
    const cache = new ResolvedPrincipals(now);
    const ttlMs = RESOLVED_PRINCIPAL_CACHE_SECONDS * 1000;
    const p = principal("scanner_license", "2026-11-25T13:00:00.000Z");
    cache.remember("license lk_1", p);
    clockMs = T0 + ttlMs - 1;
    expect(cache.get("license lk_1")).toEqual(p);
    clockMs = T0 + ttlMs;
    expect(cache.get("license lk_1")).toBeUndefined();
    // Gone once past: a revocation (or a renewal) is found by asking identity again.
    clockMs = T0;
    expect(cache.get("license lk_1")).toBeUndefined();
    // A bearer that expires sooner than the lifetime stops at its own expiry.
    const soon = principal("bearer", new Date(T0 + 1000).toISOString());
    cache.remember("bearer b", soon);
    clockMs = T0 + 999;
    expect(cache.get("bearer b")).toEqual(soon);
    clockMs = T0 + 1000;
    expect(cache.get("bearer b")).toBeUndefined();
  });

  it("forgets every key and bearer of a revoked licence at once, and keeps none of it for one lifetime more", () => {
    const cache = new ResolvedPrincipals(now);
    const later = "2026-11-25T13:00:00.000Z";
    const revoked = { ...principal("scanner_license", later), id: "license:L1" };
    const other = { ...principal("scanner_license", later), id: "license:L2" };
    cache.remember("license lk_1", revoked);
    cache.remember("bearer eyJ1", { ...revoked, tier: "bearer" });
    cache.remember("bearer@mcp_live eyJ1", { ...revoked, tier: "bearer" });
    cache.remember("license lk_2", other);
    cache.forgetLicense("L1");
    expect(["license lk_1", "bearer eyJ1", "bearer@mcp_live eyJ1", "license lk_2"].map((k) => cache.get(k)?.id ?? null)).toEqual([null, null, null, "license:L2"]);
    // An answer identity gave before the revocation, arriving after it: not kept.
    cache.remember("license lk_1", revoked);
    expect(cache.get("license lk_1")).toBeUndefined();
  });

  it("keeps a board key's free or wallet-tier principal for the lifetime, and forgets its owner's at once when a key of theirs retires", () => {
    const cache = new ResolvedPrincipals(now);
    const owner = { ...principal("free_key", null), id: "email:abc" };
    cache.remember("key bk_old", owner);
    cache.remember("key bk_other", { ...principal("free_key", null), id: "email:def" });
    cache.remember("key bk_wallet", { ...principal("wallet", null), id: "wallet:eip155:8453:0x1" });
    expect(cache.get("key bk_old")).toEqual(owner);
    expect(cache.get("key bk_wallet")?.tier).toBe("wallet");
    clockMs = T0 + RESOLVED_PRINCIPAL_CACHE_SECONDS * 1000;
    expect(cache.get("key bk_old")).toBeUndefined();
    clockMs = T0;
    cache.remember("key bk_old", owner);
    cache.forgetPrincipal("email:abc");
    expect(cache.get("key bk_old")).toBeUndefined();
    expect(cache.get("key bk_other")?.id).toBe("email:def");
    // The owner's answers in flight at the retirement (the old key's, or the new one's) are not kept for a lifetime.
    cache.remember("key bk_new", owner);
    expect(cache.get("key bk_new")).toBeUndefined();
    // A licence's principal is never kept under a board key, nor a key's under a licence.
    cache.remember("key bk_x", principal("scanner_license", "2026-11-25T13:00:00.000Z"));
    cache.remember("license lk_x", principal("free_key", null));
    expect([cache.get("key bk_x"), cache.get("license lk_x")]).toEqual([undefined, undefined]);
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
