import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";
import { ATTR_DB_NAMESPACE, ATTR_DB_OPERATION_NAME, ATTR_DB_QUERY_TEXT, ATTR_DB_SYSTEM_NAME, ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";

// Our own query spans rather than @opentelemetry/instrumentation-pg: that one patches pg
// through a require hook, so it sees nothing when pg was loaded before it was enabled (any
// ESM import of drizzle-orm/node-postgres does that), and it patches the whole process with
// one tracer, while tests run several services, each with its own, in one process.

type Queryable = { query: (...args: unknown[]) => unknown };

const MAX_QUERY_TEXT = 1000;

/** Query spans for every client of a pool, children of the span active when the query was asked. */
export function tracePool(pool: pg.Pool, tracer: Tracer, database: string): void {
  pool.on("connect", (client) => traceQueries(client as unknown as Queryable, tracer, "postgresql", database));
  // A queued pool.query gets its client in the callback of whichever request released one:
  // bound to the asking request's context, its query span has the right parent.
  const connect = pool.connect.bind(pool) as (cb?: (...args: unknown[]) => void) => unknown;
  pool.connect = ((cb?: (...args: unknown[]) => void) => (cb ? connect(context.bind(context.active(), cb)) : connect())) as typeof pool.connect;
}

/** Query spans for an embedded PGlite database, in and out of transactions. */
export function tracePglite(client: PGlite, tracer: Tracer, database: string): void {
  traceQueries(client as unknown as Queryable, tracer, "pglite", database);
  const transaction = client.transaction.bind(client);
  client.transaction = ((fn: (tx: Queryable) => Promise<unknown>) =>
    transaction((tx) => {
      traceQueries(tx as unknown as Queryable, tracer, "pglite", database);
      return fn(tx as unknown as Queryable);
    })) as typeof client.transaction;
}

/**
 * Wraps `target.query` (callback or promise form). A query asked outside a recorded span
 * (migrations, start-up, timers) makes none: there is no operation to attach it to.
 */
function traceQueries(target: Queryable, tracer: Tracer, system: string, database: string): void {
  const query = target.query.bind(target);
  target.query = (...args: unknown[]) => {
    const parent = context.active();
    if (!trace.getSpan(parent)?.isRecording()) return query(...args);
    const text = queryText(args[0]);
    const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? "QUERY";
    const span = tracer.startSpan(
      `${operation} ${database}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTR_DB_SYSTEM_NAME]: system,
          [ATTR_DB_NAMESPACE]: database,
          [ATTR_DB_OPERATION_NAME]: operation,
          // Parameterised by drizzle: the text holds placeholders, never values.
          [ATTR_DB_QUERY_TEXT]: text.slice(0, MAX_QUERY_TEXT),
        },
      },
      parent,
    );
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === "function") {
      args[last] = (err: unknown, res: unknown) => {
        end(span, err);
        return (callback as (err: unknown, res: unknown) => unknown)(err, res);
      };
      return query(...args);
    }
    let result: unknown;
    try {
      result = query(...args);
    } catch (err) {
      end(span, err);
      throw err;
    }
    if (!isThenable(result)) {
      end(span);
      return result;
    }
    return result.then(
      (value) => {
        end(span);
        return value;
      },
      (err: unknown) => {
        end(span, err);
        throw err;
      },
    );
  };
}

function queryText(first: unknown): string {
  if (typeof first === "string") return first;
  const text = (first as { text?: unknown } | null)?.text;
  return typeof text === "string" ? text : "";
}

const isThenable = (v: unknown): v is Promise<unknown> => typeof (v as { then?: unknown } | null)?.then === "function";

function end(span: Span, err?: unknown): void {
  if (err) {
    // Postgres's SQLSTATE when there is one; never the message, which may quote data.
    const code = (err as { code?: unknown }).code;
    span.setAttribute(ATTR_ERROR_TYPE, typeof code === "string" ? code : "error");
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
