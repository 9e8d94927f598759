import { VERIFIED_LICENSE_CACHE_SECONDS } from "@board/proto";
import { describe, expect, it } from "vitest";
import type { LicenseRow } from "../../src/db/schema.js";
import { VerifiedLicenses } from "../../src/licenses/verified-cache.js";

const row = (periodEnd: string, id = "l1", revokedAt: Date | null = null): LicenseRow => ({ id, periodEnd: new Date(periodEnd), revokedAt }) as unknown as LicenseRow;
const at = (iso: string) => new Date(iso);
const plus = (d: Date, ms: number) => new Date(d.getTime() + ms);
const TTL_MS = VERIFIED_LICENSE_CACHE_SECONDS * 1000;

describe("VerifiedLicenses", () => {
  it("answers a license that verified for VERIFIED_LICENSE_CACHE_SECONDS, then asks the store again", () => {
    const cache = new VerifiedLicenses();
    const t0 = at("2026-11-24T00:00:00Z");
    cache.remember("k", row("2026-12-01T00:00:00Z"), t0);
    expect(cache.get("k", plus(t0, TTL_MS - 1))?.id).toBe("l1");
    expect(cache.get("k", plus(t0, TTL_MS))).toBeUndefined();
    // Dropped once past: a revocation or renewal stored meanwhile is read from the store, not missed.
    expect(cache.get("k", t0)).toBeUndefined();
  });

  it("never answers past the license's own period_end", () => {
    const cache = new VerifiedLicenses();
    cache.remember("k", row("2026-11-24T00:00:01Z"), at("2026-11-24T00:00:00Z"));
    expect(cache.get("k", at("2026-11-24T00:00:00.999Z"))?.id).toBe("l1");
    expect(cache.get("k", at("2026-11-24T00:00:01Z"))).toBeUndefined();
  });

  it("never keeps a license that does not verify, or a revoked one", () => {
    const cache = new VerifiedLicenses();
    const now = at("2026-11-24T00:00:00Z");
    cache.remember("k", row("2026-11-01T00:00:00Z"), now);
    cache.remember("r", row("2027-01-01T00:00:00Z", "l2", now), now);
    expect(cache.get("k", now)).toBeUndefined();
    expect(cache.get("r", now)).toBeUndefined();
  });

  it("forgets a revoked license's entries at once, and keeps none of it for one lifetime more", () => {
    const cache = new VerifiedLicenses();
    const now = at("2026-11-24T00:00:00Z");
    cache.remember("key-hash", row("2027-01-01T00:00:00Z"), now);
    cache.remember("l1", row("2027-01-01T00:00:00Z"), now);
    cache.remember("other", row("2027-01-01T00:00:00Z", "l2"), now);
    cache.forget("l1", now);
    expect(cache.get("key-hash", now)).toBeUndefined();
    expect(cache.get("l1", now)).toBeUndefined();
    expect(cache.get("other", now)?.id).toBe("l2");
    // A store read that began before the revocation answers after it: not kept.
    cache.remember("key-hash", row("2027-01-01T00:00:00Z"), plus(now, 10));
    expect(cache.get("key-hash", plus(now, 20))).toBeUndefined();
  });

  it("drops the least recently used past its bound", () => {
    const cache = new VerifiedLicenses();
    const now = at("2026-11-24T00:00:00Z");
    for (let i = 0; i <= 10_000; i++) cache.remember(`k${i}`, row("2027-01-01T00:00:00Z"), now);
    expect(cache.get("k0", now)).toBeUndefined();
    expect(cache.get("k10000", now)?.id).toBe("l1");
  });
});
