/**
 * The deploy step for the bus's streams: `npm run bus-streams` creates every JetStream stream
 * proto's catalogue declares (BUS_STREAMS), or brings each to its configuration. Idempotent.
 * Runs as the operator, the one principal the bus lets create or update a stream (services
 * only use theirs): NATS_URL, NATS_NKEY_SEED_FILE (or NATS_NKEY_SEED), NATS_TLS_CA_FILE, as
 * for the licence tool. Exit codes: 0 done, 1 refused or unreachable, 2 bad configuration.
 */
import { CliFailure, ConfigError, connectAsOperator, ensureBusStreams } from "@board/service-kit";
import type { NatsConnection } from "nats";
import { loadLicenseCliEnv, type LicenseCliEnv } from "../env.js";

const say = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<number> {
  if (process.argv.length > 2) {
    say("usage: npm run bus-streams   (NATS_URL, and the operator's NATS_NKEY_SEED_FILE)");
    return 2;
  }
  let env: LicenseCliEnv;
  try {
    env = loadLicenseCliEnv();
  } catch (err) {
    if (err instanceof ConfigError) {
      say(err.message.replace(/^license:/, "bus-streams:"));
      return 2;
    }
    throw err;
  }
  let nc: NatsConnection | undefined;
  try {
    nc = await connectAsOperator(env, "bus-streams");
    for (const s of await ensureBusStreams(nc)) process.stdout.write(`${s.stream}: ${s.outcome}\n`);
    return 0;
  } catch (err) {
    if (err instanceof CliFailure) say(`bus-streams: ${err.message}`);
    // The bus refuses the operator's inbox, or drops a JetStream request it does not permit without a word: a credential that is not the operator's.
    else if (/timeout|permissions violation/i.test(err instanceof Error ? err.message : String(err)))
      say("bus-streams: the bus refused or JetStream did not answer (is JetStream on, and is the credential the operator's? no service may create or update a stream)");
    else say(`bus-streams: failed: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    if (nc && !nc.isClosed()) await nc.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    say(`bus-streams: failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
