import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";

export const root = fileURLToPath(new URL("../..", import.meta.url));

/** The services that ship as images, as the repo has them (services/<name>/src/main.ts). */
export const SERVICES = ["board", "gateway", "identity", "metering", "payments", "scanner-ingest"] as const;
export type ServiceName = (typeof SERVICES)[number];

/** The services that own a Postgres schema (a drizzle/ folder of migrations). */
export const DATABASE_SERVICES: readonly ServiceName[] = SERVICES.filter((s) => existsSync(path.join(root, "services", s, "drizzle")));

const INSTALL_HINT: Record<string, string> = {
  kubectl: "kubectl (Debian: kubernetes-client, or the cloud SDK's kubectl)",
  yamllint: "Debian's yamllint (apt-get install yamllint)",
  "docker-compose": "Debian's docker-compose 1.29 (apt-get install docker-compose)",
  promtool: "promtool, from Debian's prometheus (apt-get install prometheus)",
};

/** A command-line tool the deploy checks need; its absence fails the test with how to get it. */
export function tool(name: string): string {
  const local = path.join(root, "node_modules", ".bin", name);
  if (existsSync(local)) return local;
  for (const dir of ["/usr/bin", "/usr/local/bin", "/bin"]) {
    const p = path.join(dir, name);
    if (existsSync(p)) return p;
  }
  throw new Error(`${name} is not installed: the deploy checks need ${INSTALL_HINT[name] ?? name}`);
}

export function run(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string>; input?: string; timeoutMs?: number } = {}): SpawnSyncReturns<string> {
  const res = spawnSync(cmd, args, {
    cwd: opts.cwd ?? root,
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 60_000,
    maxBuffer: 64 * 1024 * 1024,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });
  if (res.error) throw res.error;
  return res;
}

/** Every document of a YAML stream, as plain objects; a YAML error fails loudly. */
export function parseYamlStream(text: string): unknown[] {
  return parseAllDocuments(text).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`invalid YAML: ${doc.errors.map((e) => e.message).join("; ")}`);
    return doc.toJS() as unknown;
  });
}

/** Parses .env-style text (KEY=value lines; # comments and blank lines ignored), as compose reads it. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined) out[m[1]] = m[2];
  }
  return out;
}

/** Narrowing helpers for parsed YAML: a record, or a failure naming what was expected. */
export type Obj = Record<string, unknown>;
export function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
export function obj(v: unknown, what: string): Obj {
  if (!isObj(v)) throw new Error(`${what}: expected a mapping, got ${JSON.stringify(v)}`);
  return v;
}
export function arr(v: unknown, what: string): unknown[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new Error(`${what}: expected a list, got ${JSON.stringify(v)}`);
  return v;
}
export function str(v: unknown, what: string): string {
  if (typeof v !== "string") throw new Error(`${what}: expected a string, got ${JSON.stringify(v)}`);
  return v;
}
