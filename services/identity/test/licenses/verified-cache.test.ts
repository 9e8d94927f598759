import { describe, expect, it } from "vitest";
import type { LicenseRow } from "../../src/db/schema.js";
import { VerifiedLicenses } from "../../src/licenses/verified-cache.js";

const row = (periodEnd: string): LicenseRow => ({ id: "l1", periodEnd: new Date(periodEnd) }) as unknown as LicenseRow;
const at = (iso: string) => new Date(iso);

describe("VerifiedLicenses", () => {
  it("answers a license that verified until its own period_end, then asks the store again", () => {
    const cache = new VerifiedLicenses();
    cache.remember("k", row("2026-12-01T00:00:00Z"), at("2026-11-24T00:00:00Z"));
    expect(cache.get("k", at("2026-11-30T23:59:59Z"))?.id).toBe("l1");
    expect(cache.get("k", at("2026-12-01T00:00:00Z"))).toBeUndefined();
    // Dropped once past: a renewal stored meanwhile is read from the store, not missed.
    expect(cache.get("k", at("2026-11-24T00:00:00Z"))).toBeUndefined();
  });

  it("never keeps a license that does not verify", () => {
    const cache = new VerifiedLicenses();
    cache.remember("k", row("2026-11-01T00:00:00Z"), at("2026-11-24T00:00:00Z"));
    expect(cache.get("k", at("2026-10-01T00:00:00Z"))).toBeUndefined();
  });

  it("drops the least recently used past its bound", () => {
    const cache = new VerifiedLicenses();
    const now = at("2026-11-24T00:00:00Z");
    for (let i = 0; i <= 10_000; i++) cache.remember(`k${i}`, row("2027-01-01T00:00:00Z"), now);
    expect(cache.get("k0", now)).toBeUndefined();
    expect(cache.get("k10000", now)?.id).toBe("l1");
  });
});
