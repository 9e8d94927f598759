import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type OpenDatabase } from "../../src/db.js";
import { isDatabaseUnavailable } from "../../src/db-errors.js";
import type { DatabaseTimeouts } from "../../src/env.js";
import { createLogger } from "../../src/log.js";
import { freshDatabase, type TestDatabase } from "../../src/testing/database.js";
import { testInfra } from "../../src/testing/inject.js";

// The bounds openDatabase puts on a Postgres pool (env.ts: DATABASE_*_TIMEOUT_MS), on the
// real test Postgres with short values: each ends its call with an error the services answer
// 503 for, and the pool serves again at once. Migrations are not bound by them.

const log = createLogger("metering", "silent", "test");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let db: TestDatabase;
let direct: pg.Client;
const opened: OpenDatabase<Record<string, never>>[] = [];
const tmpDirs: string[] = [];

beforeAll(async () => {
  db = await freshDatabase(testInfra().databaseUrl);
  direct = new pg.Client({ connectionString: db.url });
  await direct.connect();
  await direct.query("create table bounded (n int)");
});
afterAll(async () => {
  for (const o of opened) await o.close().catch(() => undefined);
  await direct?.end();
  await db?.drop();
  for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
});

async function open(timeouts: DatabaseTimeouts, extra: { poolSize?: number; migrationsFolder?: string; service?: string } = {}) {
  const o = await openDatabase({ service: extra.service ?? "metering", url: db.url, dataDir: "", log, timeouts, ...extra });
  opened.push(o);
  return o;
}

/** How long `p` took to settle, and its error (null when it resolved). */
async function timed(p: Promise<unknown>): Promise<{ ms: number; err: unknown }> {
  const t = performance.now();
  try {
    await p;
    return { ms: performance.now() - t, err: null };
  } catch (err) {
    return { ms: performance.now() - t, err };
  }
}

const count = async (n: number) => Number((await direct.query<{ c: string }>("select count(*) as c from bounded where n = $1", [n])).rows[0]?.c);

describe("openDatabase's bounds on Postgres", () => {
  it("a statement past the statement timeout is cancelled by the server (57014): unavailable, its transaction rolled back, the pool goes on", async () => {
    const { db: d } = await open({ statementMs: 300, queryMs: 2000, acquireMs: 2000, idleInTransactionMs: 5000 });
    const { ms, err } = await timed(
      d.transaction(async (tx) => {
        await tx.execute(sql`insert into bounded values (1)`);
        await tx.execute(sql`select pg_sleep(3)`);
      }),
    );
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect((err as { cause?: { code?: string } }).cause?.code).toBe("57014");
    expect(ms).toBeGreaterThanOrEqual(250);
    expect(ms).toBeLessThan(1500);
    expect(await count(1)).toBe(0);
    await d.execute(sql`select 1`);
  });

  it("a session idle inside a transaction past its bound is ended, its locks freed; the error is unavailable and the pool goes on", async () => {
    const { db: d } = await open({ statementMs: 2000, queryMs: 3000, acquireMs: 2000, idleInTransactionMs: 400 });
    const lockFree = async () => (await direct.query<{ ok: boolean }>("select pg_try_advisory_xact_lock(4242) as ok")).rows[0]?.ok === true;
    let heldMeanwhile: boolean | null = null;
    const { err } = await timed(
      d.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(4242)`);
        // The client goes silent inside its transaction (a pause, a partition).
        heldMeanwhile = !(await lockFree());
        await sleep(1200);
        await tx.execute(sql`select 1`);
      }),
    );
    expect(heldMeanwhile).toBe(true);
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(await lockFree()).toBe(true);
    await d.execute(sql`select 1`);
  });

  it("an answer that does not come within the read timeout fails the query as unavailable and ends its connection: the ROLLBACK after it fails at once, and the pool's next query runs on a new connection", async () => {
    // statement_timeout far away: the server stays busy and silent, as one behind a partition is.
    const { db: d } = await open({ statementMs: 10_000, queryMs: 500, acquireMs: 2000, idleInTransactionMs: 10_000 }, { poolSize: 1 });
    const pidOf = async () => Number(((await d.execute(sql`select pg_backend_pid() as pid`)) as unknown as { rows: { pid: number }[] }).rows[0]!.pid);
    const before = await pidOf();
    const { ms, err } = await timed(
      d.transaction(async (tx) => {
        await tx.execute(sql`select pg_sleep(5)`);
      }),
    );
    // drizzle throws the ROLLBACK's failure (the connection is gone) in place of the read timeout's.
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect((err as { cause?: Error }).cause?.message).toMatch(/^(Query read timeout|Connection terminated unexpectedly)$/);
    // One read timeout, not two: the ROLLBACK did not queue behind the abandoned statement.
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(ms).toBeLessThan(900);
    // The only client of the pool was dropped: the next query is answered at once, by another backend.
    const next = await timed(pidOf());
    expect(next.err).toBeNull();
    expect(next.ms).toBeLessThan(400);
    expect(await pidOf()).not.toBe(before);
    // The server lets go of the abandoned session once it notices the reset.
    await expect
      .poll(async () => Number((await direct.query<{ c: string }>("select count(*) as c from pg_stat_activity where pid = $1", [before])).rows[0]?.c), { timeout: 8000 })
      .toBe(0);
  });

  it("migrations are not bound: a replica waits on the migration lock longer than the statement timeout, then migrates", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "db-timeouts-"));
    tmpDirs.push(dir);
    mkdirSync(path.join(dir, "meta"));
    writeFileSync(
      path.join(dir, "meta", "_journal.json"),
      JSON.stringify({ version: "7", dialect: "postgresql", entries: [{ idx: 0, version: "7", when: 1_700_000_000_000, tag: "0000_bounded", breakpoints: true }] }),
    );
    writeFileSync(path.join(dir, "0000_bounded.sql"), 'CREATE SCHEMA "bounded_svc";\n--> statement-breakpoint\nCREATE TABLE "bounded_svc"."t" ("n" integer);\n');
    // Another replica migrating: it holds the service's migration lock.
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    await other.query("select pg_advisory_lock(hashtext($1))", ["migrate:bounded-svc"]);
    try {
      const opening = timed(open({ statementMs: 200, queryMs: 400, acquireMs: 2000, idleInTransactionMs: 400 }, { migrationsFolder: dir, service: "bounded-svc" }));
      await sleep(1000);
      await other.query("select pg_advisory_unlock(hashtext($1))", ["migrate:bounded-svc"]);
      const { ms, err } = await opening;
      expect(err).toBeNull();
      expect(ms).toBeGreaterThanOrEqual(900);
    } finally {
      await other.end();
    }
    await direct.query('select n from "bounded_svc"."t"');
  });
});
