import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { identityLicenseIssue, identityLicenseRenew, identityResolve, LicenseIssueReply, LicenseListReply, LicenseReply } from "@board/proto";
import { request } from "@board/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestIdentity } from "./support.js";

const t = new TestIdentity(Date.parse("2026-02-10T00:00:00Z"));
const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
const CLI = "services/identity/src/cli/license.ts";

beforeAll(() => t.start());
afterAll(() => t.stop());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The operator's command, as a separate process on the test bus (node --import tsx, as the npm script runs it), with the operator's credential unless told. */
function license(...args: string[]): Promise<Run> {
  return licenseAs(t.infra.natsSeeds?.operator, ...args);
}

function licenseAs(seed: string | undefined, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", CLI, ...args],
      { cwd: ROOT, env: { NATS_URL: t.infra.natsUrl, ...(seed ? { NATS_NKEY_SEED: seed } : {}) }, timeout: 20_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("the license CLI", () => {
  it("needs the operator's credential: none is refused by the bus, a service's is never heard by identity", async () => {
    const none = await licenseAs(undefined, "list");
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("requires a credential: set NATS_NKEY_SEED_FILE");
    const gateway = await licenseAs(t.infra.natsSeeds?.gateway, "issue", "--kind", "scanner", "--period", "monthly", "--holder", "stolen");
    expect(gateway.code).toBe(1);
    expect(gateway.stdout).toBe("");
    expect(gateway.stderr).toContain("the bus lets no one else ask for licences");
    expect((await t.query<{ n: string }>("select count(*)::text as n from identity.licenses where holder = 'stolen'"))[0]?.n).toBe("0");
  });

  it("issues (key shown once, with the hand-over advice), lists and cancels", async () => {
    const issued = await license("issue", "--kind", "live_feed", "--period", "yearly", "--holder", "order 77");
    expect(issued.code, issued.stderr).toBe(0);
    const reply = LicenseIssueReply.parse(JSON.parse(issued.stdout));
    expect(reply.key).toMatch(/^blk_/);
    expect(reply.license).toMatchObject({ kind: "live_feed", period: "yearly", holder: "order 77", state: "active", period_end: "2027-02-10T00:00:00.000Z" });
    expect(issued.stderr).toMatch(/shown this once.*secure channel/s);
    const resolved = await request(t.nc, identityResolve, { credentials: { license_key: reply.key } });
    expect(resolved).toMatchObject({ ok: true, principal: { tier: "live_license" } });

    const listed = await license("list");
    expect(listed.code, listed.stderr).toBe(0);
    const licenses = LicenseListReply.parse(JSON.parse(listed.stdout)).licenses;
    expect(licenses.map((l) => l.license_id)).toContain(reply.license.license_id);
    expect(listed.stdout).not.toContain(reply.key);

    const cancelled = await license("cancel", reply.license.license_id);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(LicenseReply.parse(JSON.parse(cancelled.stdout)).license).toMatchObject({ state: "cancelled", period_end: reply.license.period_end });
    expect(cancelled.stdout).not.toContain(reply.key);

    const renewed = await license("renew", reply.license.license_id);
    expect(renewed.code).toBe(1);
    expect(renewed.stderr).toContain("cannot be renewed");
    const unknown = await license("cancel", "00000000-0000-4000-8000-000000000000");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no license has the id");
  });

  it("renews an active license by one period", async () => {
    const issued = LicenseIssueReply.parse(JSON.parse((await license("issue", "--kind", "scanner", "--period", "monthly", "--holder", "order 78")).stdout));
    const renewed = await license("renew", issued.license.license_id);
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(LicenseReply.parse(JSON.parse(renewed.stdout)).license.period_end).toBe("2026-04-10T00:00:00.000Z");
  });

  it("revokes with a reason: the key is refused at once (license_revoked), list shows when and why, renewal is refused", async () => {
    const issued = await request(t.nc, identityLicenseIssue, { kind: "live_feed", period: "yearly", holder: "order 79" });
    expect(await request(t.nc, identityResolve, { credentials: { license_key: issued.key } })).toMatchObject({ ok: true });
    const revoked = await license("revoke", issued.license.license_id, "--reason", "key leaked in a support ticket");
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(LicenseReply.parse(JSON.parse(revoked.stdout)).license).toMatchObject({ state: "revoked", revoked_reason: "key leaked in a support ticket" });
    expect(revoked.stderr).toMatch(/refused on every replica within \d+ s/);
    expect(await request(t.nc, identityResolve, { credentials: { license_key: issued.key } })).toMatchObject({ ok: false, code: "license_revoked" });
    const listed = LicenseListReply.parse(JSON.parse((await license("list")).stdout)).licenses.find((l) => l.license_id === issued.license.license_id);
    expect(listed).toMatchObject({ state: "revoked", revoked_reason: "key leaked in a support ticket" });
    expect(listed?.revoked_at).toBeTruthy();
    await expect(request(t.nc, identityLicenseRenew, { license_id: issued.license.license_id })).rejects.toMatchObject({ status: 400, code: "invalid_request" });
  }, 60_000);

  it("exits 2 with the usage on bad arguments, touching nothing", async () => {
    const before = (await t.query<{ n: string }>("select count(*)::text as n from identity.licenses"))[0]?.n;
    for (const args of [[], ["issue", "--kind", "gold", "--period", "monthly", "--holder", "x"], ["issue", "--kind", "scanner"], ["cancel", "nope"], ["frobnicate"]]) {
      const run = await license(...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("usage:");
      expect(run.stdout).toBe("");
    }
    expect((await t.query<{ n: string }>("select count(*)::text as n from identity.licenses"))[0]?.n).toBe(before);
    // Five CLI starts (tsx transpiles each): about 6 s apiece on a loaded two-core machine.
  }, 90_000);

  it("exits 1 with a clear message when identity does not answer", async () => {
    await t.identity?.stop();
    const run = await license("list");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("identity is not answering");
  });
});
