import { createHash } from "node:crypto";
import {
  identityLicenseCancel,
  identityLicenseIssue,
  identityLicenseList,
  identityLicenseRenew,
  identityResolve,
  LicenseIssueReply,
  type LicenseIssueRequest,
} from "@board/proto";
import { BusError, request } from "@board/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY, TestIdentity } from "./support.js";

const t = new TestIdentity(Date.parse("2026-01-31T09:30:00Z"));

beforeAll(() => t.start());
afterAll(() => t.stop());

const issue = (req: Partial<LicenseIssueRequest> = {}) => request(t.nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "order 1001", ...req });
const list = () => request(t.nc, identityLicenseList, {});
const cancel = (id: string) => request(t.nc, identityLicenseCancel, { license_id: id });
const renew = (id: string) => request(t.nc, identityLicenseRenew, { license_id: id });
const resolveLicense = (key: string) => request(t.nc, identityResolve, { credentials: { license_key: key } });
const busError = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => (e instanceof BusError ? { code: e.code, status: e.status } : e));

describe("license issue and list", () => {
  it("issues a license with its key shown once; the period ends one calendar month (or year) later", async () => {
    const monthly = LicenseIssueReply.parse(await issue({ kind: "live_feed", holder: "order 1" }));
    expect(monthly.key).toMatch(/^blk_[A-Za-z0-9_-]{43}$/);
    expect(monthly.license).toMatchObject({
      kind: "live_feed",
      holder: "order 1",
      period: "monthly",
      issued_at: "2026-01-31T09:30:00.000Z",
      period_end: "2026-02-28T09:30:00.000Z",
      cancelled_at: null,
      state: "active",
    });
    expect(monthly.license.client_id).toMatch(/^lic_[0-9a-f]{16}$/);
    const yearly = await issue({ period: "yearly" });
    expect(yearly.license.period_end).toBe("2027-01-31T09:30:00.000Z");
    expect(yearly.license.client_id).not.toBe(monthly.license.client_id);

    const listed = await list();
    expect(listed.licenses.map((l) => l.license_id)).toEqual(expect.arrayContaining([monthly.license.license_id, yearly.license.license_id]));
    expect(JSON.stringify(listed)).not.toContain(monthly.key);
  });

  it("stores the key only as its sha256", async () => {
    const { key, license } = await issue();
    const all = await t.dump();
    expect(all).toContain(license.client_id);
    expect(all).not.toContain(key);
    expect(all).not.toContain(key.slice(4));
    const rows = await t.query<{ key_hash: string }>(`select key_hash from identity.licenses where id = '${license.license_id}'`);
    expect(rows[0]?.key_hash).toBe(createHash("sha256").update(key).digest("hex"));
  });

  it("resolves a license key to its tier, kind and period end", async () => {
    for (const [kind, tier] of [["scanner", "scanner_license"], ["live_feed", "live_license"]] as const) {
      const { key, license } = await issue({ kind });
      expect(await resolveLicense(key)).toEqual({
        ok: true,
        principal: { id: `license:${license.license_id}`, tier, license_kind: kind, expires_at: license.period_end },
      });
    }
    const unknown = await resolveLicense(`blk_${"B".repeat(43)}`);
    expect(unknown).toMatchObject({ ok: false, code: "license_unknown" });
    if (!unknown.ok) expect(unknown.message).toContain("check the key; licenses are sold monthly or yearly");
    expect(await resolveLicense("garbage")).toMatchObject({ ok: false, code: "license_unknown" });
  });
});

describe("cancel and renew", () => {
  it("a cancelled license works until the end of its paid period, then lapses", async () => {
    t.clock.t = Date.parse("2026-04-10T00:00:00Z");
    const { key, license } = await issue();
    const cancelled = (await cancel(license.license_id)).license;
    expect(cancelled).toMatchObject({ state: "cancelled", cancelled_at: "2026-04-10T00:00:00.000Z", period_end: "2026-05-10T00:00:00.000Z" });
    t.advance(DAY);
    // Idempotent: the first cancellation stands, the period is untouched.
    expect((await cancel(license.license_id)).license).toEqual(cancelled);
    expect(await resolveLicense(key)).toMatchObject({ ok: true });

    t.clock.t = Date.parse("2026-05-10T00:00:00Z") - 1;
    expect(await resolveLicense(key)).toMatchObject({ ok: true });
    t.advance(1);
    const lapsed = await resolveLicense(key);
    expect(lapsed).toMatchObject({ ok: false, code: "license_lapsed" });
    if (!lapsed.ok) expect(lapsed.message).toContain("2026-05-10T00:00:00.000Z");
    expect((await list()).licenses.find((l) => l.license_id === license.license_id)?.state).toBe("lapsed");
  });

  it("renews by one period from the period end, or from now once lapsed", async () => {
    t.clock.t = Date.parse("2026-06-15T12:00:00Z");
    const { key, license } = await issue();
    expect(license.period_end).toBe("2026-07-15T12:00:00.000Z");
    t.advance(10 * DAY);
    expect((await renew(license.license_id)).license).toMatchObject({ state: "active", period_end: "2026-08-15T12:00:00.000Z" });
    t.clock.t = Date.parse("2026-09-01T08:00:00Z");
    expect(await resolveLicense(key)).toMatchObject({ ok: false, code: "license_lapsed" });
    expect((await renew(license.license_id)).license).toMatchObject({ state: "active", period_end: "2026-10-01T08:00:00.000Z" });
    expect(await resolveLicense(key)).toMatchObject({ ok: true });
  });

  it("two renewals at once add two periods", async () => {
    t.clock.t = Date.parse("2026-06-15T12:00:00Z");
    const { license } = await issue();
    await Promise.all([renew(license.license_id), renew(license.license_id)]);
    expect((await list()).licenses.find((l) => l.license_id === license.license_id)?.period_end).toBe("2026-09-15T12:00:00.000Z");
  });

  it("a cancelled license cannot be renewed; an unknown id is not_found", async () => {
    const { license } = await issue();
    await cancel(license.license_id);
    expect(await busError(renew(license.license_id))).toEqual({ code: "invalid_request", status: 400 });
    const nobody = "00000000-0000-4000-8000-000000000000";
    expect(await busError(cancel(nobody))).toEqual({ code: "not_found", status: 404 });
    expect(await busError(renew(nobody))).toEqual({ code: "not_found", status: 404 });
  });
});
