/**
 * The operator's arrears tool: list the payers whose transfer failed after their read was served,
 * and clear a payer's debt, through payments on the bus (never the database). Exit codes: 0 done,
 * 1 payments refused or did not answer, 2 bad arguments or configuration.
 */
import { paymentsArrearsClear, paymentsArrearsList } from "@board/proto";
import { BusError, CliFailure, ConfigError, connectAsOperator, request } from "@board/service-kit";
import type { NatsConnection } from "nats";
import { loadArrearsCliEnv, type ArrearsCliEnv } from "../env.js";
import { ARREARS_USAGE, parseArrearsArgs, type ArrearsCommand } from "./arrears-args.js";

const REQUEST_TIMEOUT_MS = 5_000;

const out = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
const say = (line: string) => process.stderr.write(`${line}\n`);

async function run(nc: NatsConnection, command: ArrearsCommand): Promise<void> {
  const opts = { timeoutMs: REQUEST_TIMEOUT_MS };
  switch (command.op) {
    case "list": {
      const reply = await request(nc, paymentsArrearsList, {}, opts);
      out(reply);
      if (reply.payers_owing === 0) say("No payer is in arrears.");
      else if (reply.payers_owing > reply.payers.length)
        say(`${reply.payers_owing} payers are in arrears; the ${reply.payers.length} owing most are shown. Clear some to see the rest.`);
      else say(`${reply.payers_owing} payer${reply.payers_owing === 1 ? " is" : "s are"} in arrears; their payments are refused (payment_payer_in_arrears) until cleared.`);
      return;
    }
    case "clear": {
      const reply = await request(nc, paymentsArrearsClear, command.req, opts);
      out(reply);
      say(`Cleared ${reply.cleared} loss${reply.cleared === 1 ? "" : "es"} of ${reply.payer}: it owes nothing now and its next payment is accepted.`);
      return;
    }
  }
}

/** What an operator should read for each way payments can say no, or not answer. */
function explain(err: BusError, command: ArrearsCommand): string {
  switch (err.code) {
    case "service_unavailable":
      return "payments is not answering on the bus (no responders): is the payments service running?";
    case "upstream_timeout":
      // The bus drops a request it does not permit without a word: a credential that is not the operator's looks the same.
      return `payments did not answer within ${REQUEST_TIMEOUT_MS / 1000} s (is payments running, and is the credential the operator's? the bus lets no one else list or clear arrears)`;
    case "not_found":
      return command.op === "clear" ? `${command.req.payer} has no uncleared loss: nothing was cleared (see: arrears list)` : "payments answered 404 not_found";
    case "invalid_request":
      return "payments refused the request as invalid";
    default:
      return `payments answered ${err.status} ${err.code}`;
  }
}

async function main(): Promise<number> {
  const parsed = parseArrearsArgs(process.argv.slice(2));
  if (!parsed.ok) {
    say(`arrears: ${parsed.error}\n\n${ARREARS_USAGE}`);
    return 2;
  }
  let env: ArrearsCliEnv;
  try {
    env = loadArrearsCliEnv();
  } catch (err) {
    if (err instanceof ConfigError) {
      say(err.message);
      return 2;
    }
    throw err;
  }
  let nc: NatsConnection | undefined;
  try {
    nc = await connectAsOperator(env, "arrears-cli");
    await run(nc, parsed.command);
    return 0;
  } catch (err) {
    if (err instanceof CliFailure) say(`arrears: ${err.message}`);
    else if (err instanceof BusError) say(`arrears: ${explain(err, parsed.command)}`);
    else say(`arrears: failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    if (nc && !nc.isClosed()) await nc.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    say(`arrears: failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
