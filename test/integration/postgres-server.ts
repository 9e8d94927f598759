// PostgreSQL's own programs for the backup-restore test: pg_dump and pg_restore, and a scratch
// server of the test's own (initdb in a temporary folder, pg_ctl on a free port) to restore into.
// Nothing is skipped when they are missing: the test fails saying what to install.

import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "@board/service-kit/testing";
import pg from "pg";
import { toolEnv } from "../deploy/env.js";

/** The programs the test runs, all of one installation (one major version). */
export const POSTGRES_PROGRAMS = ["initdb", "pg_ctl", "postgres", "pg_dump", "pg_restore"] as const;
type Program = (typeof POSTGRES_PROGRAMS)[number];

export interface PostgresTools {
  major: number;
  dir: string;
  path(program: Program): string;
}

/** Where distributions put each major version's programs, then PATH. */
function candidateDirs(): string[] {
  const versioned = (parent: string, pattern: RegExp, bin: (entry: string) => string) => {
    try {
      return fs
        .readdirSync(parent)
        .filter((e) => pattern.test(e))
        .map((e) => path.join(parent, bin(e)));
    } catch {
      return [];
    }
  };
  return [
    // Debian and Ubuntu: /usr/lib/postgresql/<major>/bin.
    ...versioned("/usr/lib/postgresql", /^\d+$/, (e) => path.join(e, "bin")),
    // The PGDG packages of Red Hat and its kin: /usr/pgsql-<major>/bin.
    ...versioned("/usr", /^pgsql-\d+$/, (e) => path.join(e, "bin")),
    ...(toolEnv.PATH ?? "").split(path.delimiter).filter((d) => d !== ""),
  ];
}

const executable = (file: string) => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

/** The major version a program says it is ("pg_dump (PostgreSQL) 15.20 ..." -> 15). */
async function majorOf(program: string): Promise<number | null> {
  const { code, stdout } = await runProgram(program, ["--version"]);
  const m = /\(PostgreSQL\)\s+(\d+)/.exec(stdout);
  return code === 0 && m ? Number(m[1]) : null;
}

/**
 * PostgreSQL's programs of a version that can dump a server of `serverMajor` (the same or
 * newer): the oldest such installation found. Fails, naming what was found and what to install,
 * when there is none.
 */
export async function postgresTools(serverMajor: number): Promise<PostgresTools> {
  const seen = new Set<string>();
  const found: { dir: string; missing: Program[]; major: number | null }[] = [];
  for (const dir of candidateDirs()) {
    const real = fs.existsSync(dir) ? fs.realpathSync(dir) : dir;
    if (seen.has(real)) continue;
    seen.add(real);
    const missing = POSTGRES_PROGRAMS.filter((p) => !executable(path.join(dir, p)));
    if (missing.length === POSTGRES_PROGRAMS.length) continue;
    found.push({ dir, missing, major: missing.includes("pg_dump") ? null : await majorOf(path.join(dir, "pg_dump")) });
  }
  const usable = found.filter((f) => f.missing.length === 0 && f.major !== null && f.major >= serverMajor).sort((a, b) => a.major! - b.major!);
  const best = usable[0];
  if (best) return { major: best.major!, dir: best.dir, path: (p) => path.join(best.dir, p) };
  const what = found.length
    ? found.map((f) => `${f.dir}: ${f.major === null ? "version unknown" : `PostgreSQL ${f.major}`}${f.missing.length ? `, without ${f.missing.join(", ")}` : ""}`).join("; ")
    : "none in /usr/lib/postgresql/*/bin, /usr/pgsql-*/bin or PATH";
  throw new Error(
    `The backup-restore test needs PostgreSQL's programs (${POSTGRES_PROGRAMS.join(", ")}) of version ${serverMajor} or later, ` +
      `the test database's server being PostgreSQL ${serverMajor}. Found: ${what}. ` +
      `On Debian or Ubuntu: apt-get install postgresql-${serverMajor} (it brings the server programs and the client's pg_dump and pg_restore).`,
  );
}

/** Whom the scratch server runs as: this user, or as root (which PostgreSQL refuses) the system user `postgres`. */
interface ServerUser {
  name: string;
  uid?: number;
  gid?: number;
}

async function serverUser(): Promise<ServerUser> {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return { name: os.userInfo().username };
  const uid = await runProgram("id", ["-u", "postgres"]);
  const gid = await runProgram("id", ["-g", "postgres"]);
  if (uid.code !== 0 || gid.code !== 0)
    throw new Error(
      "PostgreSQL refuses to run as root, and this test runs as root: it starts its scratch server as the system user postgres, " +
        "which does not exist here. Debian's postgresql package makes it (or: useradd --system --user-group postgres); or run the tests as another user.",
    );
  return { name: "postgres", uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program without blocking the event loop (the services under test live in this process). */
function runProgram(file: string, args: string[], opts: { user?: ServerUser; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        encoding: "utf8",
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
        // PATH only (and the C locale): nothing of the caller's shell changes what the programs do.
        env: { ...toolEnv, LC_ALL: "C", ...opts.env },
        ...(opts.user?.uid !== undefined && opts.user.gid !== undefined ? { uid: opts.user.uid, gid: opts.user.gid } : {}),
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : null) : 0;
        resolve({ code, stdout, stderr: stderr || (err && code === null ? err.message : "") });
      },
    );
  });
}

async function mustRun(file: string, args: string[], opts: Parameters<typeof runProgram>[2] = {}): Promise<string> {
  const r = await runProgram(file, args, opts);
  if (r.code !== 0) throw new Error(`${path.basename(file)} ${args.filter((a) => !a.includes("://")).join(" ")} failed (exit ${String(r.code)}):\n${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/**
 * A custom-format pg_dump of the database at `url` into `file`. With `snapshot` (one exported by
 * an open repeatable-read transaction, pg_export_snapshot()) it dumps exactly what that
 * transaction sees, while the services go on writing.
 */
export async function dumpDatabase(tools: PostgresTools, url: string, file: string, snapshot?: string): Promise<void> {
  await mustRun(tools.path("pg_dump"), ["--format=custom", "--no-password", `--file=${file}`, ...(snapshot ? [`--snapshot=${snapshot}`] : []), `--dbname=${url}`]);
}

/** A PostgreSQL server of the test's own in a temporary folder: loopback TCP only, a password for its superuser, gone after stop(). */
export class ScratchPostgres {
  private constructor(
    private readonly tools: PostgresTools,
    private readonly user: ServerUser,
    /** The temporary folder: the data directory, the server's log and socket, and the dump. */
    readonly dir: string,
    readonly port: number,
    private readonly superuser: string,
    private readonly password: string,
  ) {}

  private get data() {
    return path.join(this.dir, "data");
  }

  /** The URL of one of its databases, as its superuser. */
  url(database: string): string {
    return `postgres://${encodeURIComponent(this.superuser)}:${this.password}@127.0.0.1:${this.port}/${encodeURIComponent(database)}`;
  }

  /** initdb and pg_ctl start; the superuser is named `superuser` (the source's owner of everything, so a restore keeps its owners). */
  static async start(tools: PostgresTools, superuser: string): Promise<ScratchPostgres> {
    const user = await serverUser();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "board-restore-"));
    try {
      if (user.uid !== undefined && user.gid !== undefined) fs.chownSync(dir, user.uid, user.gid);
      const password = randomBytes(18).toString("hex");
      const pwfile = path.join(dir, "superuser.pw");
      fs.writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
      if (user.uid !== undefined && user.gid !== undefined) fs.chownSync(pwfile, user.uid, user.gid);
      const data = path.join(dir, "data");
      await mustRun(
        tools.path("initdb"),
        [`--pgdata=${data}`, `--username=${superuser}`, `--pwfile=${pwfile}`, "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"],
        { user },
      );
      fs.rmSync(pwfile);
      // A port taken between freePort() and the server's bind is tried again with another.
      for (let attempt = 1; ; attempt++) {
        const port = await freePort();
        const server = new ScratchPostgres(tools, user, dir, port, superuser, password);
        fs.writeFileSync(
          path.join(data, "postgresql.auto.conf"),
          [
            `port = ${port}`,
            "listen_addresses = '127.0.0.1'",
            `unix_socket_directories = '${dir}'`,
            // A throwaway server: nothing here must survive a crash of this machine.
            "fsync = off",
            "synchronous_commit = off",
            "full_page_writes = off",
            "shared_buffers = '32MB'",
            "max_connections = 100",
            "",
          ].join("\n"),
        );
        const started = await runProgram(tools.path("pg_ctl"), ["start", `--pgdata=${data}`, `--log=${path.join(dir, "server.log")}`, "--wait", "--timeout=60"], { user, timeoutMs: 70_000 });
        if (started.code === 0) return server;
        const log = fs.existsSync(path.join(dir, "server.log")) ? fs.readFileSync(path.join(dir, "server.log"), "utf8") : "";
        if (attempt < 3 && /could not bind|Address already in use/i.test(log)) continue;
        throw new Error(`pg_ctl start failed (exit ${String(started.code)}):\n${(started.stderr || started.stdout).trim()}\n${log.trim().split("\n").slice(-10).join("\n")}`);
      }
    } catch (err) {
      // No server is running here (pg_ctl start failed, or was never reached).
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** A new database `name`, and the dump restored into it with pg_restore (every statement must succeed). */
  async restore(dumpFile: string, name: string): Promise<string> {
    const admin = new pg.Client({ connectionString: this.url("postgres") });
    await admin.connect();
    try {
      await admin.query(`create database ${pg.escapeIdentifier(name)} template template0 encoding 'UTF8'`);
    } finally {
      await admin.end();
    }
    await mustRun(this.tools.path("pg_restore"), ["--exit-on-error", "--no-password", `--dbname=${this.url(name)}`, dumpFile]);
    return this.url(name);
  }

  /** pg_ctl stop (fast, then immediate), and the folder removed. */
  async stop(): Promise<void> {
    try {
      if (fs.existsSync(path.join(this.data, "postmaster.pid"))) {
        const fast = await runProgram(this.tools.path("pg_ctl"), ["stop", `--pgdata=${this.data}`, "--mode=fast", "--wait", "--timeout=30"], { user: this.user, timeoutMs: 40_000 });
        if (fast.code !== 0) await runProgram(this.tools.path("pg_ctl"), ["stop", `--pgdata=${this.data}`, "--mode=immediate", "--wait", "--timeout=30"], { user: this.user, timeoutMs: 40_000 });
      }
    } finally {
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/** Every table of these schemas: its rows and a digest of their text (sorted bytewise, UTC), to compare two databases row for row. */
export async function tableDigests(url: string, schemas: readonly string[]): Promise<Record<string, { rows: number; digest: string }>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await digestsWith(c, schemas);
  } finally {
    await c.end();
  }
}

/** tableDigests on a connection the caller holds (inside a transaction of its own, say). */
export async function digestsWith(c: pg.Client, schemas: readonly string[]): Promise<Record<string, { rows: number; digest: string }>> {
  // Timestamps as text in one zone, whatever each server's default.
  await c.query("set TimeZone = 'UTC'");
  const { rows: tables } = await c.query<{ schema: string; name: string }>(
    `select n.nspname as schema, c.relname as name from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p') and n.nspname = any($1) order by 1, 2`,
    [schemas],
  );
  const out: Record<string, { rows: number; digest: string }> = {};
  for (const t of tables) {
    const table = `${pg.escapeIdentifier(t.schema)}.${pg.escapeIdentifier(t.name)}`;
    const { rows } = await c.query<{ rows: number; digest: string | null }>(
      `select count(*)::int as rows, md5(string_agg(t::text, E'\\n' order by t::text collate "C")) as digest from ${table} t`,
    );
    out[`${t.schema}.${t.name}`] = { rows: rows[0]!.rows, digest: rows[0]!.digest ?? "" };
  }
  return out;
}
