import { describe, expect, it } from "vitest";
import { parseLicenseArgs } from "../../src/cli/license-args.js";

const id = "0b9f6a0e-6f0a-4c8e-9a57-2f1d8f3b6a11";

describe("license CLI arguments", () => {
  it("reads the five commands", () => {
    expect(parseLicenseArgs(["issue", "--kind", "live_feed", "--period", "yearly", "--holder", " order 42 "])).toEqual({
      ok: true,
      command: { op: "issue", req: { kind: "live_feed", period: "yearly", holder: "order 42" } },
    });
    expect(parseLicenseArgs(["issue", "--kind=scanner", "--period=monthly", "--holder=x"]).ok).toBe(true);
    expect(parseLicenseArgs(["list"])).toEqual({ ok: true, command: { op: "list" } });
    expect(parseLicenseArgs(["cancel", id])).toEqual({ ok: true, command: { op: "cancel", ref: { license_id: id } } });
    expect(parseLicenseArgs(["renew", id])).toEqual({ ok: true, command: { op: "renew", ref: { license_id: id } } });
    expect(parseLicenseArgs(["revoke", id, "--reason", " key posted on a forum "])).toEqual({
      ok: true,
      command: { op: "revoke", ref: { license_id: id, reason: "key posted on a forum" } },
    });
    expect(parseLicenseArgs(["revoke", "--reason=leaked", id]).ok).toBe(true);
  });

  it("refuses bad arguments with a reason", () => {
    const cases: [string[], RegExp][] = [
      [[], /no command/],
      [["delete", id], /unknown command: delete/],
      [["issue", "--period", "monthly", "--holder", "x"], /--kind is required/],
      [["issue", "--kind", "gold", "--period", "monthly", "--holder", "x"], /--kind: /],
      [["issue", "--kind", "scanner", "--period", "weekly", "--holder", "x"], /--period: /],
      [["issue", "--kind", "scanner", "--period", "monthly"], /--holder is required/],
      [["issue", "--kind", "scanner", "--period", "monthly", "--holder", "  "], /--holder: /],
      [["issue", "--kind", "scanner", "--period", "monthly", "--holder", "x", "--email", "a@b"], /--email/],
      [["list", "extra"], /no arguments/],
      [["cancel"], /exactly one license id/],
      [["renew", "not-a-uuid"], /not a license id/],
      [["cancel", id, id], /exactly one/],
      [["revoke", id], /--reason is required/],
      [["revoke", "--reason", "leaked"], /exactly one license id/],
      [["revoke", "nope", "--reason", "leaked"], /not a license id/],
      [["revoke", id, "--reason", "   "], /--reason: /],
      [["revoke", id, "--reason", "x".repeat(501)], /--reason: /],
      [["revoke", id, "--reason", "leaked", "--now"], /--now/],
    ];
    for (const [argv, reason] of cases) {
      const parsed = parseLicenseArgs(argv);
      expect(parsed.ok, argv.join(" ")).toBe(false);
      if (!parsed.ok) expect(parsed.error).toMatch(reason);
    }
  });
});
