import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Duplex } from "node:stream";
import { PGlite } from "@electric-sql/pglite";
import type { Tracer } from "@opentelemetry/api";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { readMigrationFiles } from "drizzle-orm/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzleLite } from "drizzle-orm/pglite";
import { migrate as migrateLite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { isQueryReadTimeout } from "./db-errors.js";
import { instrumentPool } from "./db-metrics.js";
import { tracePglite, tracePool } from "./db-tracing.js";
import { DATABASE_TIMEOUT_DEFAULTS, type DatabaseTimeouts } from "./env.js";
import { redactUrl, type Logger } from "./log.js";
import type { Metrics } from "./metrics.js";

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
  /** The pool's use and its timeouts on these metrics (db-metrics.ts); none when omitted. */
  metrics?: Metrics;
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
  const journal = migrationJournal(opts.service);
  const migration = opts.migrationsFolder
    ? { migrationsFolder: opts.migrationsFolder, migrationsSchema: journal.schema, migrationsTable: journal.table }
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
  const max = opts.poolSize ?? 10;
  const pool = new pg.Pool({
    connectionString: opts.url,
    max,
    connectionTimeoutMillis: timeouts.acquireMs,
    // Sent at connection start-up: every session of the pool has them, nothing to run per checkout.
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    query_timeout: timeouts.queryMs,
  });
  const lost = (err: Error) => opts.log.warn({ err: err.message }, "database connection lost");
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on("error", (err) => opts.log.warn({ err: err.message }, "idle database client failed"));
  const instruments = opts.metrics ? instrumentPool(pool, max, opts.metrics) : null;
  pool.on("connect", (client) => {
    // A client checked out of the pool (a transaction) has no listener of the pool's: losing
    // its connection would be an uncaught 'error' that stops the process. Its queries fail on
    // their own and the pool drops it when it is released.
    client.on("error", lost);
    endOnReadTimeout(client, instruments?.onError);
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
      await migratePostgres(client, opts.service, migration.migrationsFolder);
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
function endOnReadTimeout(client: pg.PoolClient, onError?: (err: unknown) => void): void {
  const query = client.query.bind(client) as QueryFn;
  const end = (err: unknown) => {
    if (err) onError?.(err);
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

/**
 * Where a service's migration journal lives: beside, not inside, its schema (the first
 * migration creates that schema), in the "drizzle" schema every service shares.
 */
export const migrationJournal = (service: string) => ({ schema: "drizzle", table: `${schemaName(service)}_migrations` }) as const;

/** The journal table's columns, as drizzle's migrator creates it (its rows are read the same way). */
export const MIGRATION_JOURNAL_COLUMNS = "id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint";

const quoteIdent = (name: string) => pg.escapeIdentifier(name);

async function withAdvisoryLock<T>(client: pg.Client, key: string, fn: () => Promise<T>): Promise<T> {
  await client.query("select pg_advisory_lock(hashtext($1))", [key]);
  try {
    return await fn();
  } finally {
    await client.query("select pg_advisory_unlock(hashtext($1))", [key]);
  }
}

/**
 * Applies a service's pending migrations with drizzle's journal semantics (one row per
 * migration: its sha256 and its folder timestamp; every migration newer than the newest row
 * runs, in order, all in one transaction). Drizzle's own migrator is not used: it runs
 * CREATE SCHEMA / CREATE TABLE IF NOT EXISTS, which Postgres refuses a role without CREATE on
 * the database even when they exist. Here the journal schema and table are created only when
 * missing, so a service's own role (db-roles.ts), which owns them already, needs no more.
 */
async function migratePostgres(client: pg.Client, service: string, migrationsFolder: string): Promise<void> {
  const journal = migrationJournal(service);
  const table = `${quoteIdent(journal.schema)}.${quoteIdent(journal.table)}`;
  const migrations = readMigrationFiles({ migrationsFolder });
  try {
    // Every service's journal shares the "drizzle" schema: two services migrating at once,
    // each under its own lock, would race to create it. One lock, taken by every service for
    // this check only.
    await withAdvisoryLock(client, JOURNAL_SCHEMA_LOCK, async () => {
      const found = await client.query("select 1 from pg_catalog.pg_namespace where nspname = $1", [journal.schema]);
      if (found.rowCount === 0) await client.query(`create schema ${quoteIdent(journal.schema)}`);
    });
  } catch (err) {
    throw missingProvisioning(err, service);
  }
  await withAdvisoryLock(client, `migrate:${service}`, async () => {
    const exists = await client.query<{ t: string | null }>("select to_regclass($1)::text as t", [table]);
    if (exists.rows[0]?.t == null) {
      try {
        await client.query(`create table ${table} (${MIGRATION_JOURNAL_COLUMNS})`);
      } catch (err) {
        throw missingProvisioning(err, service);
      }
    }
    const last = await client.query<{ created_at: string | null }>(`select created_at from ${table} order by created_at desc limit 1`);
    const lastAt = last.rows[0]?.created_at;
    const pending = migrations.filter((m) => lastAt == null || Number(lastAt) < m.folderMillis);
    if (pending.length === 0) return;
    await client.query("begin");
    try {
      for (const m of pending) {
        for (const statement of m.sql) await client.query(statement);
        await client.query(`insert into ${table} ("hash", "created_at") values ($1, $2)`, [m.hash, m.folderMillis]);
      }
      await client.query("commit");
    } catch (err) {
      await client.query("rollback").catch(() => undefined);
      throw err;
    }
  });
}

/** A role refused the journal's schema or table: say what is missing rather than only "permission denied". */
function missingProvisioning(err: unknown, service: string): unknown {
  if ((err as { code?: string }).code !== "42501") return err;
  const { schema, table } = migrationJournal(service);
  return new Error(
    `database_role_not_provisioned: this role may not create ${schema}.${table}; provision it first (provisionServiceRoles, or the postgres init script)`,
    { cause: err },
  );
}
