/**
 * The operator's license tool: issue, list, cancel, renew and revoke licenses through identity on
 * the bus (never the database). Exit codes: 0 done, 1 identity refused or did not answer,
 * 2 bad arguments or configuration.
 */
import { identityLicenseCancel, identityLicenseIssue, identityLicenseList, identityLicenseRenew, identityLicenseRevoke, LICENSE_REVOCATION_BOUND_SECONDS } from "@board/proto";
import { BusError, CliFailure, ConfigError, connectAsOperator, request } from "@board/service-kit";
import type { NatsConnection } from "nats";
import { loadLicenseCliEnv, type LicenseCliEnv } from "../env.js";
import { LICENSE_USAGE, parseLicenseArgs, type LicenseCommand } from "./license-args.js";

const REQUEST_TIMEOUT_MS = 5_000;

const out = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
const say = (line: string) => process.stderr.write(`${line}\n`);

async function run(nc: NatsConnection, command: LicenseCommand): Promise<void> {
  const opts = { timeoutMs: REQUEST_TIMEOUT_MS };
  switch (command.op) {
    case "issue": {
      const reply = await request(nc, identityLicenseIssue, command.req, opts);
      out(reply);
      say(
        "The key above is shown this once and is stored only as a hash. Hand it to the holder over a secure channel " +
          "(not plain email or chat); with the client_id it is also their OAuth client secret.",
      );
      return;
    }
    case "list":
      out(await request(nc, identityLicenseList, {}, opts));
      return;
    case "cancel":
      out(await request(nc, identityLicenseCancel, command.ref, opts));
      return;
    case "renew":
      out(await request(nc, identityLicenseRenew, command.ref, opts));
      return;
    case "revoke":
      out(await request(nc, identityLicenseRevoke, command.ref, opts));
      say(`Revoked: its key, bearer tokens and refresh tokens are refused on every replica within ${LICENSE_REVOCATION_BOUND_SECONDS} s. Nothing undoes it; issue a new license if needed.`);
      return;
  }
}

/** What an operator should read for each way identity can say no, or not answer. */
function explain(err: BusError, command: LicenseCommand): string {
  const id = "ref" in command ? command.ref.license_id : "";
  switch (err.code) {
    case "service_unavailable":
      return "identity is not answering on the bus (no responders): is the identity service running?";
    case "upstream_timeout":
      // The bus drops a request it does not permit without a word: a credential that is not the operator's looks the same.
      return `identity did not answer within ${REQUEST_TIMEOUT_MS / 1000} s (is identity running, and is the credential the operator's? the bus lets no one else ask for licences)`;
    case "not_found":
      return `no license has the id ${id} (see: license list)`;
    case "invalid_request":
      return command.op === "renew" ? `license ${id} is cancelled or revoked: it cannot be renewed; issue a new one` : "identity refused the request as invalid";
    default:
      return `identity answered ${err.status} ${err.code}`;
  }
}

async function main(): Promise<number> {
  const parsed = parseLicenseArgs(process.argv.slice(2));
  if (!parsed.ok) {
    say(`license: ${parsed.error}\n\n${LICENSE_USAGE}`);
    return 2;
  }
  let env: LicenseCliEnv;
  try {
    env = loadLicenseCliEnv();
  } catch (err) {
    if (err instanceof ConfigError) {
      say(err.message);
      return 2;
    }
    throw err;
  }
  let nc: NatsConnection | undefined;
  try {
    nc = await connectAsOperator(env, "license-cli");
    await run(nc, parsed.command);
    return 0;
  } catch (err) {
    if (err instanceof CliFailure) say(`license: ${err.message}`);
    else if (err instanceof BusError) say(`license: ${explain(err, parsed.command)}`);
    else say(`license: failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    if (nc && !nc.isClosed()) await nc.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    say(`license: failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
