import { parseArgs } from "node:util";
import { LicenseIssueRequest, LicenseRef, LicenseRevokeRequest } from "@board/proto";

export const LICENSE_USAGE = `usage:
  license issue --kind scanner|live_feed --period monthly|yearly --holder "<text>"
  license list
  license cancel <license_id>
  license renew <license_id>
  license revoke <license_id> --reason "<text>"

revoke stops a license now, for good (a leaked key): its key, its bearer tokens and its
refresh tokens are refused everywhere within seconds. cancel only ends it at period_end.

Talks to the identity service over NATS (NATS_URL, default nats://127.0.0.1:4222) as the
operator: NATS_NKEY_SEED_FILE (or NATS_NKEY_SEED) is the operator's nkey seed; npm start keeps it
in .data/nats/auth/operator.nk.`;

export type LicenseCommand =
  | { op: "issue"; req: LicenseIssueRequest }
  | { op: "list" }
  | { op: "cancel" | "renew"; ref: LicenseRef }
  | { op: "revoke"; ref: LicenseRevokeRequest };

export type ParsedLicenseCommand = { ok: true; command: LicenseCommand } | { ok: false; error: string };

const fail = (error: string): ParsedLicenseCommand => ({ ok: false, error });

/** The operator's arguments, checked against the same contracts identity checks them with. */
export function parseLicenseArgs(argv: readonly string[]): ParsedLicenseCommand {
  const [op, ...rest] = argv;
  switch (op) {
    case "issue": {
      let values: { kind?: string; period?: string; holder?: string };
      try {
        ({ values } = parseArgs({
          args: [...rest],
          options: { kind: { type: "string" }, period: { type: "string" }, holder: { type: "string" } },
          strict: true,
          allowPositionals: false,
        }));
      } catch (err) {
        return fail(err instanceof Error ? err.message : String(err));
      }
      const req = LicenseIssueRequest.safeParse({ kind: values.kind, period: values.period, holder: values.holder?.trim() });
      if (!req.success) {
        const issue = req.error.issues[0];
        const name = String(issue?.path[0] ?? "arguments");
        return fail(values[name as keyof typeof values] === undefined ? `--${name} is required` : `--${name}: ${issue?.message ?? "invalid"}`);
      }
      return { ok: true, command: { op, req: req.data } };
    }
    case "list":
      return rest.length === 0 ? { ok: true, command: { op } } : fail("list takes no arguments");
    case "cancel":
    case "renew": {
      if (rest.length !== 1) return fail(`${op} takes exactly one license id`);
      const ref = LicenseRef.safeParse({ license_id: rest[0] });
      if (!ref.success) return fail(`${rest[0] ?? ""} is not a license id (a UUID, as license list shows)`);
      return { ok: true, command: { op, ref: ref.data } };
    }
    case "revoke": {
      let parsed: { values: { reason?: string }; positionals: string[] };
      try {
        parsed = parseArgs({ args: [...rest], options: { reason: { type: "string" } }, strict: true, allowPositionals: true });
      } catch (err) {
        return fail(err instanceof Error ? err.message : String(err));
      }
      const { values, positionals } = parsed;
      if (positionals.length !== 1) return fail("revoke takes exactly one license id");
      if (!LicenseRef.safeParse({ license_id: positionals[0] }).success) return fail(`${positionals[0] ?? ""} is not a license id (a UUID, as license list shows)`);
      if (values.reason === undefined) return fail("--reason is required: why the license is revoked (kept with it, shown by license list)");
      const ref = LicenseRevokeRequest.safeParse({ license_id: positionals[0], reason: values.reason });
      if (!ref.success) return fail(`--reason: ${ref.error.issues[0]?.message ?? "invalid"} (1 to 500 characters)`);
      return { ok: true, command: { op, ref: ref.data } };
    }
    case undefined:
      return fail("no command given");
    default:
      return fail(`unknown command: ${op}`);
  }
}
