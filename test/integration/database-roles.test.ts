import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  createLogger,
  DATABASE_SERVICES,
  openDatabase,
  provisionServiceRoles,
  rolePasswordEnv,
  schemaName,
  serviceRolesInitScript,
  type OpenDatabase,
} from "@board/service-kit";
import { freshDatabase, testInfra, type TestDatabase } from "@board/service-kit/testing";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";

// One Postgres role per service (packages/service-kit/src/db-roles.ts): each service migrates
// as its own role, which owns its schema and nothing else. Roles are cluster-wide, so they keep
// their real names here; each test works in a fresh database and only changes passwords.
const infra = testInfra();
const folder = (s: string) => new URL(`../../services/${s}/drizzle`, import.meta.url).pathname;
const journal = (s: string) => (JSON.parse(readFileSync(`${folder(s)}/meta/_journal.json`, "utf8")) as { entries: unknown[] }).entries.length;
// Where psql is on Debian (postgresql-client) and most systems; no other environment is passed.
const SHELL_PATH = "/usr/local/bin:/usr/bin:/bin";
const secret = () => randomBytes(18).toString("hex");
// One table of each service's schema, from its first migration.
const TABLE: Record<string, string> = { board: "board.snapshots", identity: "identity.board_keys", metering: "metering.daily", payments: "payments.claims" };

const asRole = (url: string, service: string, password: string) => {
  const u = new URL(url);
  u.username = schemaName(service);
  u.password = password;
  return u.toString();
};

const databases: TestDatabase[] = [];
const opened: OpenDatabase<Record<string, never>>[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
});

async function fresh(): Promise<TestDatabase> {
  const db = await freshDatabase(infra.databaseUrl);
  databases.push(db);
  return db;
}

async function open(url: string, service: string): Promise<void> {
  opened.push(await openDatabase({ service, url, dataDir: "/nonexistent", log: createLogger(service, "silent", "r0"), migrationsFolder: folder(service), poolSize: 1 }));
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The SQLSTATE a statement fails with, or "ok". */
const sqlstate = (c: pg.Client, text: string) =>
  c.query(text).then(
    () => "ok",
    (err: unknown) => (err as { code?: string }).code ?? String(err),
  );

async function journalRows(url: string): Promise<Record<string, string[]>> {
  return withClient(url, async (c) => {
    const out: Record<string, string[]> = {};
    for (const s of DATABASE_SERVICES)
      out[s] = (await c.query<{ row: string }>(`select id || ':' || created_at as row from drizzle.${schemaName(s)}_migrations order by id`)).rows.map((r) => r.row);
    return out;
  });
}

/** Who owns each service's schema, its tables, its types and its journal. */
async function owners(url: string): Promise<string[]> {
  return withClient(url, async (c) => {
    const rows = await c.query<{ line: string }>(
      `select n.nspname || ' ' || pg_get_userbyid(n.nspowner) as line from pg_namespace n where n.nspname = any($1)
       union all select c.oid::regclass::text || ' ' || pg_get_userbyid(c.relowner) from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where (n.nspname = any($1) or (n.nspname = 'drizzle' and c.relname like '%_migrations')) and c.relkind in ('r', 'S', 'v')
       union all select t.oid::regtype::text || ' ' || pg_get_userbyid(t.typowner) from pg_type t join pg_namespace n on n.oid = t.typnamespace
         where n.nspname = any($1) and t.typtype = 'e'`,
      [[...DATABASE_SERVICES]],
    );
    return rows.rows.map((r) => r.line).sort();
  });
}

/** Every owned object whose owner is not the role named after its schema. */
const misowned = (lines: string[]) =>
  lines.filter((line) => {
    const [obj = "", owner = ""] = line.split(" ");
    const schema = obj.startsWith("drizzle.") ? obj.slice("drizzle.".length).replace(/_migrations(_id_seq)?$/, "") : obj.split(".")[0];
    return schema !== owner;
  });

describe("a database role per service", () => {
  it("each service migrates as its own role, owns its schema only, and a second start changes nothing", async () => {
    const db = await fresh();
    const roles = DATABASE_SERVICES.map((service) => ({ service, password: secret() }));
    await provisionServiceRoles(db.url, roles);
    await provisionServiceRoles(db.url, roles); // idempotent
    const url = (s: string) => asRole(db.url, s, roles.find((r) => r.service === s)!.password);

    for (const s of DATABASE_SERVICES) await open(url(s), s);
    const applied = await journalRows(db.url);
    for (const s of DATABASE_SERVICES) expect(applied[s], s).toHaveLength(journal(s));
    const owned = await owners(db.url);
    expect(owned.length).toBeGreaterThan(12);
    expect(misowned(owned)).toEqual([]);

    // metering's credentials against board's schema, the journal schema, public and the database.
    await withClient(url("metering"), async (c) => {
      expect(await sqlstate(c, `select count(*) from ${TABLE.board}`)).toBe("42501");
      expect(await sqlstate(c, "create table board.intruder (n int)")).toBe("42501");
      expect(await sqlstate(c, "select count(*) from drizzle.board_migrations")).toBe("42501");
      expect(await sqlstate(c, "create table drizzle.intruder (n int)")).toBe("42501");
      expect(await sqlstate(c, "create table public.intruder (n int)")).toBe("42501");
      expect(await sqlstate(c, "create schema intruder")).toBe("42501");
      expect(await sqlstate(c, "create temporary table intruder (n int)")).toBe("42501");
      // Its own schema: everything, unqualified names included.
      expect(await sqlstate(c, `select count(*) from ${TABLE.metering}`)).toBe("ok");
      expect(await sqlstate(c, "select count(*) from daily")).toBe("ok");
    });
    for (const s of DATABASE_SERVICES)
      for (const other of DATABASE_SERVICES.filter((o) => o !== s))
        await withClient(url(s), async (c) => expect(await sqlstate(c, `select 1 from ${TABLE[other]} limit 1`), `${s} reading ${other}`).toBe("42501"));

    // A second start (a restart, another replica) as the role: no DDL, no new journal row.
    await Promise.all(opened.splice(0).map((o) => o.close()));
    for (const s of DATABASE_SERVICES) await open(url(s), s);
    expect(await journalRows(db.url)).toEqual(applied);
    expect(await owners(db.url)).toEqual(owned);
  });

  it("a database one superuser migrated (today's single-role setup) is taken over: nothing re-run, each role owns its objects", async () => {
    const db = await fresh();
    for (const s of DATABASE_SERVICES) await open(db.url, s);
    await Promise.all(opened.splice(0).map((o) => o.close()));
    const applied = await journalRows(db.url);

    const roles = DATABASE_SERVICES.map((service) => ({ service, password: secret() }));
    await provisionServiceRoles(db.url, roles);
    expect(misowned(await owners(db.url))).toEqual([]);
    for (const r of roles) await open(asRole(db.url, r.service, r.password), r.service);
    expect(await journalRows(db.url)).toEqual(applied);
    await withClient(asRole(db.url, "payments", roles[3]!.password), async (c) => {
      expect(await sqlstate(c, `select count(*) from ${TABLE.payments}`)).toBe("ok");
      expect(await sqlstate(c, `select count(*) from ${TABLE.identity}`)).toBe("42501");
    });
  });

  it("a role that was not provisioned is told so, not only 'permission denied'", async () => {
    const db = await fresh();
    const role = `t_${randomBytes(4).toString("hex")}`;
    await withClient(db.url, (c) => c.query(`create role ${role} login`));
    try {
      const u = new URL(db.url);
      u.username = role;
      await expect(open(u.toString(), "metering")).rejects.toThrow(/^database_role_not_provisioned: /);
    } finally {
      await withClient(db.url, (c) => c.query(`drop role ${role}`));
    }
  });

  it("the postgres init script (compose, Kubernetes dev) provisions the same roles with psql", async () => {
    const db = await fresh();
    const u = new URL(db.url);
    const passwords = Object.fromEntries(DATABASE_SERVICES.map((s) => [rolePasswordEnv(s), secret()]));
    const before = await withClient(db.url, (c) => c.query<{ r: string }>("select rolname || rolpassword as r from pg_authid where rolname = any($1) order by 1", [[...DATABASE_SERVICES]]));
    const res = spawnSync("sh", ["-s"], {
      input: serviceRolesInitScript(),
      encoding: "utf8",
      env: {
        PATH: SHELL_PATH,
        PGHOST: u.hostname,
        PGPORT: u.port || "5432",
        ...(u.password ? { PGPASSWORD: decodeURIComponent(u.password) } : {}),
        POSTGRES_USER: decodeURIComponent(u.username),
        POSTGRES_DB: u.pathname.slice(1),
        ...passwords,
      },
    });
    if (res.error) throw new Error(`the init script needs psql (Debian: postgresql-client): ${res.error.message}`);
    expect(res.status, res.stderr).toBe(0);
    const after = await withClient(db.url, (c) => c.query<{ r: string }>("select rolname || rolpassword as r from pg_authid where rolname = any($1) order by 1", [[...DATABASE_SERVICES]]));
    expect(after.rows).toHaveLength(4);
    expect(after.rows).not.toEqual(before.rows); // new SCRAM verifiers
    for (const s of DATABASE_SERVICES) await open(asRole(db.url, s, passwords[rolePasswordEnv(s)]!), s);
    expect(misowned(await owners(db.url))).toEqual([]);

    // Without a password the script stops before touching the database.
    const missing = spawnSync("sh", ["-s"], { input: serviceRolesInitScript(), encoding: "utf8", env: { PATH: SHELL_PATH, POSTGRES_USER: "x", POSTGRES_DB: "x" } });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("POSTGRES_PASSWORD_BOARD is required");
  });
});
