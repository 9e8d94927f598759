import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { Tracer } from "@opentelemetry/api";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzleLite } from "drizzle-orm/pglite";
import { migrate as migrateLite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { tracePglite, tracePool } from "./db-tracing.js";
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

  const pool = new pg.Pool({ connectionString: opts.url, max: opts.poolSize ?? 10, connectionTimeoutMillis: 3000 });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on("error", (err) => opts.log.warn({ err: err.message }, "idle database client failed"));
  // A client checked out of the pool (a transaction, the migrations) has no listener of the
  // pool's: losing its connection would be an uncaught 'error' that stops the process. Its
  // queries fail on their own and the pool drops it when it is released.
  pool.on("connect", (client) => client.on("error", (err) => opts.log.warn({ err: err.message }, "database connection lost")));
  // Before the first connection: every client the pool makes is traced (migrations make no spans: no span is active).
  if (opts.tracer) tracePool(pool, opts.tracer, new URL(opts.url).pathname.slice(1) || "postgres");
  if (migration) {
    const client = await pool.connect();
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
      client.release();
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

/** The Postgres schema a service's tables live in: its name with dashes as underscores. */
export const schemaName = (service: string) => service.replace(/-/g, "_");
