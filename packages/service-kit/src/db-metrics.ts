import type pg from "pg";
import { isQueryReadTimeout } from "./db-errors.js";
import { Counter, Gauge, type Metrics } from "./metrics.js";

/** Which of db.ts's bounds an error is, if any: what db_timeouts_total counts. */
export type DatabaseTimeoutKind = "statement" | "idle_in_transaction" | "query_read" | "acquire";

/**
 * The bound an error hit: the server cancelled a statement (statement_timeout, 57014) or ended
 * a session idle in a transaction (25P03); the client gave up on an answer (query_timeout) or on
 * a pooled connection (connectionTimeoutMillis). drizzle wraps the driver's error in `cause`.
 */
export function timeoutKindOf(err: unknown): DatabaseTimeoutKind | null {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === "57014") return "statement";
    if (code === "25P03") return "idle_in_transaction";
    if (isQueryReadTimeout(e)) return "query_read";
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && /timeout exceeded when trying to connect|connection timeout/i.test(message)) return "acquire";
  }
  return null;
}

export interface PoolInstruments {
  /** Counts `err` when it is one of the bounds. */
  onError(err: unknown): void;
}

/**
 * The pool's use on /metrics (connections open, idle, callers waiting, the maximum), read at
 * scrape time, and db_timeouts_total{kind}: saturation and timeouts are what a slow or stalled
 * database looks like from a service before its requests fail.
 */
export function instrumentPool(pool: pg.Pool, max: number, metrics: Metrics): PoolInstruments {
  const registers = [metrics.registry];
  new Gauge({ name: "db_pool_max_connections", help: "Connections this replica's database pool may open", registers }).set(max);
  new Gauge({
    name: "db_pool_connections",
    help: "Connections this replica's database pool holds open (busy and idle)",
    registers,
    collect() {
      this.set(pool.totalCount);
    },
  });
  new Gauge({
    name: "db_pool_idle_connections",
    help: "Open connections of this replica's database pool that no query holds",
    registers,
    collect() {
      this.set(pool.idleCount);
    },
  });
  new Gauge({
    name: "db_pool_waiting_clients",
    help: "Queries and transactions of this replica waiting for a pooled connection",
    registers,
    collect() {
      this.set(pool.waitingCount);
    },
  });
  const timeouts = new Counter({ name: "db_timeouts_total", help: "Database calls ended by a bound: statement, idle_in_transaction, query_read, acquire", labelNames: ["kind"], registers });
  for (const kind of ["statement", "idle_in_transaction", "query_read", "acquire"] satisfies DatabaseTimeoutKind[]) timeouts.inc({ kind }, 0);
  const onError = (err: unknown) => {
    const kind = timeoutKindOf(err);
    if (kind) timeouts.inc({ kind });
  };
  // A connection the pool could not give in time fails pool.connect (pool.query goes through it too).
  const connect = pool.connect.bind(pool) as (cb?: (err: Error | undefined, ...rest: unknown[]) => void) => unknown;
  pool.connect = ((cb?: (err: Error | undefined, ...rest: unknown[]) => void) => {
    if (cb)
      return connect((err, ...rest) => {
        if (err) onError(err);
        cb(err, ...rest);
      });
    return (connect() as Promise<unknown>).catch((err: unknown) => {
      onError(err);
      throw err;
    });
  }) as typeof pool.connect;
  return { onError };
}
