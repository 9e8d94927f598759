// The stack's own database when no DATABASE_URL is given: a real PostgreSQL server
// (database-server.ts) with one database, `board`, and a role per service that owns only its
// schema, as in docker-compose and Kubernetes. Each service gets a URL with its own role.

import { createHmac } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { provisionServiceRoles } from "@board/service-kit/db-roles";
import pg from "pg";
import { freePort } from "./nats.js";
import {
  adminUrl,
  dataDirectoryState,
  initCluster,
  markMade,
  prepareDataDirectory,
  serverBinaries,
  serverUser,
  spawnServer,
  stopLeftoverServer,
  type ServerSettings,
} from "./database-server.js";
import { localSecret } from "./secrets.js";

/** The services that keep data, each with its role and schema. */
export const DATA_SERVICES = ["board", "identity", "metering", "payments"] as const;
export type DataService = (typeof DATA_SERVICES)[number];
const DATABASE = "board";

export interface StackDatabase {
  /** Each data service's DATABASE_URL: its own role on the stack's database. */
  urls: Record<DataService, string>;
  /** The running server process (replaced by restart()). */
  child: ChildProcess;
  dir: string;
  logFile: string;
  /** Starts the server again on the same port and data after it exited. */
  restart(): Promise<ChildProcess>;
  stop(): Promise<void>;
}

export async function startStackDatabase(dataDir: string, say: (line: string) => void): Promise<StackDatabase> {
  const bin = serverBinaries();
  const user = serverUser();
  const dir = path.join(dataDir, "postgres");
  const secret = localSecret(dataDir, "database");
  // Passwords derived from the machine's own secret: nothing more to keep, the same every start.
  const password = (role: string) => createHmac("sha256", secret).update(`postgres-role:${role}`).digest("base64url");
  const settings: ServerSettings = { dir, port: await freePort(), adminPassword: password("postgres"), logFile: path.join(dataDir, "postgres.log") };

  prepareDataDirectory(dataDir, dir, user);
  await stopLeftoverServer(dir, say);
  const state = dataDirectoryState(dir);
  if (state === "half-made") {
    // Nothing but the launcher writes before the marker: what is there is an unfinished start.
    say(`${dir} was left half made by a start that did not finish: making it again`);
    for (const entry of fs.readdirSync(dir)) fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
  if (state !== "made") initCluster(bin, settings, user);
  let child = await spawnServer(bin, settings, user);
  try {
    const admin = adminUrl(settings.port, settings.adminPassword);
    await ensureDatabase(admin, DATABASE);
    await provisionServiceRoles(
      adminUrl(settings.port, settings.adminPassword, DATABASE),
      DATA_SERVICES.map((service) => ({ service, password: password(service) })),
    );
    if (state !== "made") markMade(dir, user);
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
  const urls = Object.fromEntries(
    DATA_SERVICES.map((s) => [s, `postgres://${s}:${encodeURIComponent(password(s))}@127.0.0.1:${settings.port}/${DATABASE}`]),
  ) as Record<DataService, string>;
  const db: StackDatabase = {
    urls,
    child,
    dir,
    logFile: settings.logFile,
    async restart() {
      child = await spawnServer(bin, settings, user);
      db.child = child;
      return child;
    },
    stop: () => stopServer(db.child),
  };
  return db;
}

async function ensureDatabase(url: string, name: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rowCount } = await c.query("select 1 from pg_database where datname = $1", [name]);
    if (!rowCount) await c.query(`create database "${name}"`);
  } finally {
    await c.end();
  }
}

/** Fast shutdown (SIGINT: open sessions are ended, the data is consistent), killed after 15 s. */
function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGINT");
  });
}
