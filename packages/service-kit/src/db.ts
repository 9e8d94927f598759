import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Duplex } from "node:stream";
import { PGlite } from "@electric-sql/pglite";
import type { Tracer } from "@opentelemetry/api";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzleLite } from "drizzle-orm/pglite";
import { migrate as migrateLite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { isQueryReadTimeout } from "./db-errors.js";
import { tracePglite, tracePool } from "./db-tracing.js";
import { DATABASE_TIMEOUT_DEFAULTS, type DatabaseTimeouts } from "./env.js";
import { redactUrl, type Logger } from "./log.js";

export type Database<S extends Record<string, unknown> = Record<string, never>> = PgDatabase<PgQueryResultHKT, S>;

export interface OpenDatabase<S extends Record<string, unknown>> {
  readonly db: Database<S>;
  readonly kind: "postgres" | "pglite";
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions<S extends Record<string, unknown>> {
  service: string;
  /** A postgres:// URL; unset means embedded PGlite under dataDir/<service>. */
  url: string | undefined;
  dataDir: string;
  /** The service's drizzle-kit output folder; the service's own Postgres schema holds its tables. */
  migrationsFolder?: string;
  schema?: S;
  log: Logger;
  poolSize?: number;
  /** Query spans (children of the active span) with this tracer; none when omitted. */
  tracer?: Tracer;
  /** The bounds on every Postgres call (env.ts, DATABASE_TIMEOUT_DEFAULTS when omitted); PGlite has none. */
  timeouts?: DatabaseTimeouts;
}

const JOURNAL_SCHEMA_LOCK = "migrate:journal-schema";

/**
 * Opens the service's database and applies its migrations before anything else runs.
 * On Postgres the migrations run under an advisory lock keyed by the service, so several
 * replicas starting at once apply them exactly once.
 */
export async function openDatabase<S extends Record<string, unknown> = Record<string, never>>(
  opts: DatabaseOptions<S>,
): Promise<OpenDatabase<S>> {
  const migration = opts.migrationsFolder
    ? // The journal lives beside, not inside, the service's schema: its first migration creates that schema.
      { migrationsFolder: opts.migrationsFolder, migrationsSchema: "drizzle", migrationsTable: `${schemaName(opts.service)}_migrations` }
    : undefined;
  const config = opts.schema ? { schema: opts.schema } : {};

  if (!opts.url) {
    const dir = path.resolve(opts.dataDir, opts.service);
    fs.mkdirSync(dir, { recursive: true });
    const client = await PGlite.create(dir);
    const db = drizzleLite({ client, ...config });
    // PGlite is one connection in one process: no other replica can race the migration.
    if (opts.tracer) tracePglite(client, opts.tracer, opts.service);
    if (migration) await migrateLite(db, migration);
    opts.log.info({ database: "pglite", dir }, "database ready");
    return {
      db: db as unknown as Database<S>,
      kind: "pglite",
      ping: async () => {
        await client.query("select 1");
      },
      close: () => client.close(),
    };
  }

  const timeouts = opts.timeouts ?? DATABASE_TIMEOUT_DEFAULTS;
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: timeouts.acquireMs,
    // Sent at connection start-up: every session of the pool has them, nothing to run per checkout.
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    query_timeout: timeouts.queryMs,
  });
  const lost = (err: Error) => opts.log.warn({ err: err.message }, "database connection lost");
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on("error", (err) => opts.log.warn({ err: err.message }, "idle database client failed"));
  pool.on("connect", (client) => {
    // A client checked out of the pool (a transaction) has no listener of the pool's: losing
    // its connection would be an uncaught 'error' that stops the process. Its queries fail on
    // their own and the pool drops it when it is released.
    client.on("error", lost);
    endOnReadTimeout(client);
  });
  // Before the first connection: every client the pool makes is traced.
  if (opts.tracer) tracePool(pool, opts.tracer, new URL(opts.url).pathname.slice(1) || "postgres");
  if (migration) {
    // Migrations have a connection of their own, without the statement bounds: a replica waits
    // on the advisory locks below for as long as another one migrates, and a migration may
    // rewrite a table for longer than any request would be allowed. They run before the
    // service answers anything; an orchestrator's start-up probe bounds them.
    const client = new pg.Client({ connectionString: opts.url, connectionTimeoutMillis: timeouts.acquireMs });
    client.on("error", lost);
    await client.connect();
    try {
      // Every service's journal shares the "drizzle" schema: two services migrating at once, each
      // under its own lock, would race on CREATE SCHEMA IF NOT EXISTS (not atomic in Postgres).
      // It is created under one lock that every service takes for that statement only.
      await client.query("select pg_advisory_lock(hashtext($1))", [JOURNAL_SCHEMA_LOCK]);
      try {
        await client.query(`create schema if not exists "${migration.migrationsSchema}"`);
      } finally {
        await client.query("select pg_advisory_unlock(hashtext($1))", [JOURNAL_SCHEMA_LOCK]);
      }
      await client.query("select pg_advisory_lock(hashtext($1))", [`migrate:${opts.service}`]);
      try {
        await migratePg(drizzlePg(client), migration);
      } finally {
        await client.query("select pg_advisory_unlock(hashtext($1))", [`migrate:${opts.service}`]);
      }
    } finally {
      await client.end();
    }
  }
  const db = drizzlePg(pool, config);
  opts.log.info({ database: redactUrl(opts.url) }, "database ready");
  return {
    db: db as unknown as Database<S>,
    kind: "postgres",
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: () => pool.end(),
  };
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * pg's query_timeout fails the query but keeps its connection, with the abandoned statement
 * still in flight: a transaction's ROLLBACK would wait behind it for another timeout, and the
 * client would go back to the pool to stall the next request too. A read timeout ends the
 * connection instead; its other queries fail at once and the pool drops the client.
 */
function endOnReadTimeout(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFn;
  const end = (err: unknown) => {
    if (isQueryReadTimeout(err)) reset(client.connection.stream);
  };
  (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === "function") {
      args[last] = (err: unknown, res: unknown) => {
        end(err);
        return (callback as (err: unknown, res: unknown) => unknown)(err, res);
      };
      return query(...args);
    }
    const result = query(...args);
    if (!isThenable(result)) return result;
    return result.then(undefined, (err: unknown) => {
      end(err);
      throw err;
    });
  };
}

/**
 * Ends a connection with a TCP reset: the kernel drops what it has not yet delivered, so a
 * statement still stuck in a partition never reaches the server when the network heals
 * (a plain close would keep sending it, then run it with nobody waiting). A socket that is
 * not plain TCP (TLS, a Unix socket) cannot be reset and is closed.
 */
function reset(stream: Duplex): void {
  if (stream instanceof net.Socket && !stream.destroyed) {
    try {
      stream.resetAndDestroy();
      return;
    } catch {
      // Not a TCP handle: closed below.
    }
  }
  stream.destroy();
}

const isThenable = (v: unknown): v is PromiseLike<unknown> => typeof (v as { then?: unknown } | null)?.then === "function";

/** The Postgres schema a service's tables live in: its name with dashes as underscores. */
export const schemaName = (service: string) => service.replace(/-/g, "_");
