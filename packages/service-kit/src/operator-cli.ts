import { readFileSync } from "node:fs";
import { inboxPrefixOf } from "@board/proto";
import { connect as connectNats, nkeyAuthenticator, type NatsConnection } from "nats";
import { z } from "zod";
import { BaseEnv } from "./env.js";
import { redactUrl } from "./log.js";

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * What an operator's tool reads (the licence, stream and arrears tools): the bus, and the
 * operator's seed given or in a file (never both), as each service's env.ts loads it.
 */
export const OperatorCliEnv = z
  .object({
    NATS_URL: z.string().min(1).default("nats://127.0.0.1:4222"),
    NATS_NKEY_SEED: BaseEnv.shape.NATS_NKEY_SEED,
    NATS_NKEY_SEED_FILE: z.string().min(1).optional(),
    /** The bus's CA, as the services take it (prod: TLS inside the namespace). */
    NATS_TLS_CA_FILE: BaseEnv.shape.NATS_TLS_CA_FILE,
  })
  .refine((env) => !(env.NATS_NKEY_SEED && env.NATS_NKEY_SEED_FILE), { path: ["NATS_NKEY_SEED_FILE"], message: "give NATS_NKEY_SEED or NATS_NKEY_SEED_FILE, not both" });
export type OperatorCliEnv = z.infer<typeof OperatorCliEnv>;

/** A failure the operator's tools explain in a sentence (exit 1), never with a stack. */
export class CliFailure extends Error {}

/** The operator's seed: given, read from its file, or none (a bus without authorization). */
function operatorSeed(env: OperatorCliEnv): string | undefined {
  if (!env.NATS_NKEY_SEED_FILE) return env.NATS_NKEY_SEED;
  let seed: string;
  try {
    seed = readFileSync(env.NATS_NKEY_SEED_FILE, "utf8").trim();
  } catch (err) {
    throw new CliFailure(`cannot read NATS_NKEY_SEED_FILE (${env.NATS_NKEY_SEED_FILE}): ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  if (!/^SU[A-Z2-7]{56}$/.test(seed)) throw new CliFailure(`NATS_NKEY_SEED_FILE (${env.NATS_NKEY_SEED_FILE}) does not hold a user nkey seed`);
  return seed;
}

/** The operator's connection (the licence, stream and arrears tools): one attempt, no reconnection, so a refused credential is said at once. */
export async function connectAsOperator(env: OperatorCliEnv, name: string): Promise<NatsConnection> {
  const seed = operatorSeed(env);
  try {
    return await connectNats({
      servers: env.NATS_URL.split(",").map((s) => s.trim()),
      name,
      reconnect: false,
      timeout: CONNECT_TIMEOUT_MS,
      ...(env.NATS_TLS_CA_FILE ? { tls: { caFile: env.NATS_TLS_CA_FILE } } : {}),
      ...(seed ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)), inboxPrefix: inboxPrefixOf("operator") } : {}),
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/authorization violation|authentication/i.test(message))
      throw new CliFailure(
        seed
          ? `the bus at ${redactUrl(env.NATS_URL)} refused the operator credential: is NATS_NKEY_SEED (or NATS_NKEY_SEED_FILE) the operator's?`
          : `the bus at ${redactUrl(env.NATS_URL)} requires a credential: set NATS_NKEY_SEED_FILE (or NATS_NKEY_SEED) to the operator's nkey seed`,
      );
    throw new CliFailure(`cannot reach NATS at ${redactUrl(env.NATS_URL)} within ${CONNECT_TIMEOUT_MS / 1000} s: is the bus up, and is NATS_URL right?`);
  }
}
