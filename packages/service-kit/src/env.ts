import { z } from "zod";

/** A configuration that cannot be used; its message lists every problem, one per line, never a value. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * Parse a service's environment with its zod schema. Each service's own env.ts calls this
 * with process.env; nothing else reads the environment.
 */
export function parseEnv<S extends z.ZodType>(schema: S, source: Record<string, string | undefined>, service: string): z.infer<S> {
  const parsed = schema.safeParse(source);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(environment)"}: ${i.message}`);
  throw new ConfigError(`${service}: invalid configuration\n${lines.join("\n")}`);
}

const port = z.coerce.number().int().min(0).max(65535);
/** Milliseconds, as a whole number. */
const millis = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/**
 * The bounds on every Postgres call (PGlite, in process, has none). They are measured against
 * the bus: the gateway's BUS_TIMEOUT_MS (3000 by default) is the shortest wait of a caller (a
 * board read, an identity or metering request, a claim release; a claim gets 3x it, a
 * settlement 10x), so each bound alone ends a call before that caller gives up, and the caller
 * hears the service's 503 service_unavailable rather than its own 504 upstream_timeout.
 * Settlement's statements are short too: no transaction is held while a settlement waits for
 * the chain (up to payments' SETTLEMENT_RECEIPT_TIMEOUT_MS), and a statement cut there leaves
 * its claim open for reconciliation, never lost.
 */
export const DATABASE_TIMEOUT_DEFAULTS = {
  /** Postgres statement_timeout: the server cancels a statement (and rolls it back) after this. OLTP statements here take milliseconds; lock waits count too. */
  statementMs: 2000,
  /**
   * pg's query_timeout: the client gives up on an answer after this, for a server that cannot
   * answer at all (a partition that drops packets). Longer than the statement timeout, so a
   * live server's cancellation (a definite rollback) comes first; the margin is network time.
   */
  queryMs: 2500,
  /** The pool's connectionTimeoutMillis: waiting for a free client plus opening a connection (TCP, TLS, authentication). */
  acquireMs: 2000,
  /**
   * Postgres idle_in_transaction_session_timeout: a session idle inside a transaction (its
   * client silent, partitioned or gone) is ended and its locks freed after this. Transactions
   * here issue their statements back to back; seconds leave room for a stalled event loop.
   */
  idleInTransactionMs: 5000,
} as const;

/** Settings every service shares. Defaults serve a developer's machine; production sets them all. */
export const BaseEnv = z.object({
  NATS_URL: z.string().min(1).default("nats://127.0.0.1:4222").describe("NATS server(s), comma separated; JetStream required."),
  /**
   * This service's nkey seed on the bus (docs/security.md): with it the service signs the
   * server's challenge and gets its own permissions. Unset: it connects without a credential,
   * which a bus with authorization on refuses.
   */
  NATS_NKEY_SEED: z
    .string()
    .regex(/^SU[A-Z2-7]{56}$/, "must be a user nkey seed (SU followed by 56 base32 characters)")
    .optional(),
  /**
   * A PEM file of the CA that signs the NATS servers' certificates (production: cert-manager's
   * ca.crt, mounted). Set: the connection must be TLS, the server's certificate must chain to
   * this CA and name the host of NATS_URL. Unset: the system's CAs, TLS only if the server asks.
   */
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  /** Unset: an embedded PGlite database under DATA_DIR/<service>. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional()
    .describe("postgres:// URL; each service uses its own schema, as its own role where one is provisioned. Unset: an embedded PGlite database under DATA_DIR/<service>."),
  /**
   * A PEM file of the CA that signs the Postgres server's certificate (production: the
   * CloudNativePG cluster's ca.crt, mounted). Set: DATABASE_URL is used with sslmode=verify-full
   * and this file as sslrootcert (databaseUrl), so TLS is required and the server must prove
   * the host name of DATABASE_URL with a certificate of this CA.
   */
  DATABASE_TLS_CA_FILE: z.string().min(1).optional(),
  /** The bounds on Postgres calls (DATABASE_TIMEOUT_DEFAULTS says why these defaults). */
  DATABASE_STATEMENT_TIMEOUT_MS: millis(100, 600_000)
    .default(DATABASE_TIMEOUT_DEFAULTS.statementMs)
    .describe("Postgres statement_timeout: the server cancels (and rolls back) a statement after this; lock waits count; migrations are not bound."),
  DATABASE_QUERY_TIMEOUT_MS: millis(100, 600_000)
    .default(DATABASE_TIMEOUT_DEFAULTS.queryMs)
    .describe("The client gives up on an answer after this (a server behind a silent partition) and resets the connection; must be longer than DATABASE_STATEMENT_TIMEOUT_MS."),
  DATABASE_ACQUIRE_TIMEOUT_MS: millis(100, 600_000)
    .default(DATABASE_TIMEOUT_DEFAULTS.acquireMs)
    .describe("Waiting for a pooled connection, or opening one (TCP, TLS, authentication)."),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: millis(100, 3_600_000)
    .default(DATABASE_TIMEOUT_DEFAULTS.idleInTransactionMs)
    .describe("Postgres idle_in_transaction_session_timeout: a session idle inside a transaction is ended and its locks freed."),
  DATA_DIR: z.string().min(1).default(".data").describe("Where a service run alone keeps its embedded PGlite database (DATA_DIR/<service>)."),
  HEALTH_PORT: port,
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info").describe("pino log level."),
  /** pretty: one readable line per event; json: JSON lines. Unset: pretty on a terminal, JSON otherwise. */
  LOG_FORMAT: z.enum(["pretty", "json"]).optional(),
  /** A name for this replica in logs and $SRV discovery; defaults to host and pid. */
  INSTANCE_ID: z.string().min(1).optional(),
  /**
   * "true": nats.js captures the caller's stack on each of its own requests (JetStream
   * publishes and management; bus requests go through ReplyMux), so a timeout shows where it
   * was asked. Off by default: two Error objects per request; bus errors name their subject.
   */
  NATS_ASYNC_TRACES: z.stringbool().default(false),
  /** An OTLP/HTTP collector's base URL (spans go to <url>/v1/traces). Unset or empty: no tracing (no spans, no trace ids in logs). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  ),
  /** The service.name spans carry; defaults to the service's own name. */
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  /** The share of new traces recorded, 0 to 1. A caller's sampled trace is always continued. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /** "true": no tracing, even with a collector configured. */
  OTEL_SDK_DISABLED: z.stringbool().default(false),
});
export type BaseEnv = z.infer<typeof BaseEnv>;

/** BaseEnv with the service's own default health port. */
export function baseEnv(defaultHealthPort: number) {
  return BaseEnv.extend({ HEALTH_PORT: port.default(defaultHealthPort).describe("Port of /healthz, /readyz and /metrics; 0 picks a free port.") });
}

/** The bounds on Postgres calls, in the shape openDatabase takes them. */
export interface DatabaseTimeouts {
  statementMs: number;
  queryMs: number;
  acquireMs: number;
  idleInTransactionMs: number;
}

/**
 * The database bounds of a parsed environment. A client-side timeout not longer than the
 * statement timeout would abandon statements the server is about to cancel cleanly, leaving
 * their outcome unknown: refused here (BaseEnv stays a plain object that services extend).
 */
export function databaseTimeouts(
  env: Pick<BaseEnv, "DATABASE_STATEMENT_TIMEOUT_MS" | "DATABASE_QUERY_TIMEOUT_MS" | "DATABASE_ACQUIRE_TIMEOUT_MS" | "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS">,
  service: string,
): DatabaseTimeouts {
  if (env.DATABASE_QUERY_TIMEOUT_MS <= env.DATABASE_STATEMENT_TIMEOUT_MS)
    throw new ConfigError(`${service}: invalid configuration\n  DATABASE_QUERY_TIMEOUT_MS: must be longer than DATABASE_STATEMENT_TIMEOUT_MS`);
  return {
    statementMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
    queryMs: env.DATABASE_QUERY_TIMEOUT_MS,
    acquireMs: env.DATABASE_ACQUIRE_TIMEOUT_MS,
    idleInTransactionMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}

/**
 * The Postgres URL a service connects with: DATABASE_URL as given, or, with
 * DATABASE_TLS_CA_FILE, with sslmode=verify-full and sslrootcert=<that file> added. node-postgres
 * (pg-connection-string) then reads the CA from the file for each new connection (a rotated CA
 * is picked up), requires TLS and checks the certificate's chain and host name. A URL that
 * already sets sslmode or sslrootcert is refused rather than overridden, and so is a CA
 * without a URL: either means the deployment expects something this process would not do.
 */
export function databaseUrl(env: Pick<BaseEnv, "DATABASE_URL" | "DATABASE_TLS_CA_FILE">, service: string): string | undefined {
  const caFile = env.DATABASE_TLS_CA_FILE;
  if (!caFile) return env.DATABASE_URL;
  const invalid = (message: string) => new ConfigError(`${service}: invalid configuration\n  DATABASE_TLS_CA_FILE: ${message}`);
  if (!env.DATABASE_URL) throw invalid("set without DATABASE_URL");
  const url = new URL(env.DATABASE_URL);
  for (const p of ["sslmode", "sslrootcert", "ssl"])
    if (url.searchParams.has(p)) throw invalid(`DATABASE_URL sets ${p} itself; give the CA in one place`);
  url.searchParams.set("sslmode", "verify-full");
  url.searchParams.set("sslrootcert", caFile);
  return url.toString();
}
