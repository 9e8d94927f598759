import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createBusKey } from "@board/service-kit/bus-access";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SCANNER_PROCESS_ENV } from "../../services/scanner-ingest/src/process-env.js";
import { toolEnv } from "./env.js";
import { configIssues, ENV_SCHEMAS, SECRET_VARIABLE } from "./env-schemas.js";
import { arr, DATABASE_SERVICES, isObj, obj, parseEnvFile, parseYamlStream, root, run, SERVICES, str, tool, type Obj } from "./tools.js";

const PLACEHOLDER = "CHANGE_ME";
/** The superuser's password and each service role's (docker-compose.yml's postgres). */
const POSTGRES_PASSWORDS = ["POSTGRES_PASSWORD", ...DATABASE_SERVICES.map((s) => `POSTGRES_PASSWORD_${s.toUpperCase()}`)];
const example = readFileSync(path.join(root, ".env.example"), "utf8");

/** .env.example with every active placeholder replaced, as an operator fills it (the bus's seeds as npm run bus-credentials makes them). */
const filled = example.replace(new RegExp(`^([A-Z_]+)=${PLACEHOLDER}$`, "gm"), (_, name: string) =>
  name.startsWith("NATS_NKEY_SEED_") ? `${name}=${createBusKey().seed}` : `${name}=${randomBytes(24).toString("hex")}`,
);

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), "compose-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `docker-compose config` of the committed file with this .env beside it (no engine needed). */
function composeConfig(envText: string, ...args: string[]): ReturnType<typeof run> {
  const dir = mkdtempSync(path.join(work, "project-"));
  copyFileSync(path.join(root, "docker-compose.yml"), path.join(dir, "docker-compose.yml"));
  writeFileSync(path.join(dir, ".env"), envText);
  return run(tool("docker-compose"), ["-f", "docker-compose.yml", "config", ...args], { cwd: dir, env: toolEnv });
}

function resolvedServices(envText: string): Record<string, Obj> {
  const res = composeConfig(envText);
  expect(res.status, res.stderr).toBe(0);
  return obj(obj(parseYamlStream(res.stdout)[0], "compose config").services, "services") as Record<string, Obj>;
}

function environmentOf(service: Obj): Record<string, string> {
  const env = service.environment;
  if (Array.isArray(env)) return Object.fromEntries(env.map((e) => String(e).split(/=(.*)/s).slice(0, 2)));
  return Object.fromEntries(Object.entries(isObj(env) ? env : {}).map(([k, v]) => [k, v === null ? "" : String(v)]));
}

describe("docker-compose.yml", () => {
  test("dclint finds no problem", () => {
    const res = run(tool("dclint"), ["docker-compose.yml", "--max-warnings", "0", "--color", "false"]);
    expect(res.status, res.stdout + res.stderr).toBe(0);
  });

  test("docker-compose (Debian's 1.29) accepts it with .env.example as .env", () => {
    const res = composeConfig(example, "-q");
    expect(res.status, res.stderr).toBe(0);
  });

  test("without a .env it refuses to start instead of running without secrets", () => {
    const res = composeConfig("");
    expect(res.status).not.toBe(0);
    expect(res.stderr).toMatch(/POSTGRES_PASSWORD|IDENTITY_SECRET/);
  });

  test("the six services are built from the Dockerfile and run hardened", () => {
    const services = resolvedServices(filled);
    const problems: string[] = [];
    for (const name of SERVICES) {
      const s = services[name];
      if (!s) {
        problems.push(`${name}: not in docker-compose.yml`);
        continue;
      }
      const build = isObj(s.build) ? s.build : {};
      if (typeof build.context !== "string" || ![undefined, "Dockerfile"].includes(build.dockerfile as string) || !isObj(build.args) || build.args.SERVICE !== name)
        problems.push(`${name}: not built from the root Dockerfile with SERVICE=${name}`);
      if (s.read_only !== true) problems.push(`${name}: root filesystem is writable`);
      if (!arr(s.tmpfs, "tmpfs").includes("/tmp")) problems.push(`${name}: no tmpfs /tmp`);
      if (!arr(s.cap_drop, "cap_drop").includes("ALL")) problems.push(`${name}: capabilities not dropped`);
      if (arr(s.cap_add, "cap_add").length > 0) problems.push(`${name}: adds capabilities`);
      if (!arr(s.security_opt, "security_opt").includes("no-new-privileges:true")) problems.push(`${name}: no no-new-privileges`);
      if (s.user !== undefined) problems.push(`${name}: overrides the image's non-root user`);
      if (s.restart !== "unless-stopped") problems.push(`${name}: not restarted`);
      const deps = obj(s.depends_on, `${name} depends_on`);
      const needs = ["nats", ...(DATABASE_SERVICES.includes(name) ? ["postgres"] : [])];
      for (const dep of needs) if (obj(deps[dep], `${name} -> ${dep}`).condition !== "service_healthy") problems.push(`${name}: does not wait for a healthy ${dep}`);
      for (const [dep, cond] of Object.entries(deps)) if (obj(cond, dep).condition !== "service_healthy") problems.push(`${name}: does not wait for a healthy ${dep}`);
      const published = arr(s.ports, "ports");
      if (name === "gateway") {
        if (published.length !== 1) problems.push("gateway: its HTTP port is not published");
      } else if (published.length > 0) problems.push(`${name}: publishes a port`);
    }
    expect(problems).toEqual([]);
  });

  test("the gateway waits for every service it calls; only it is published, on loopback", () => {
    const services = resolvedServices(filled);
    const gateway = obj(services.gateway, "gateway");
    expect(Object.keys(obj(gateway.depends_on, "depends_on")).sort()).toEqual(["board", "identity", "metering", "nats", "payments"]);
    const published = Object.entries(services).filter(([, s]) => arr(s.ports, "ports").length > 0);
    expect(published.map(([n]) => n)).toEqual(["gateway"]);
    expect(arr(gateway.ports, "ports")).toEqual(["127.0.0.1:8080:8080/tcp"]);
  });

  test("each service with data connects as its own role, which the postgres init script creates with its own password", () => {
    const services = resolvedServices(filled);
    const pg = obj(services.postgres, "postgres");
    const pgEnv = environmentOf(pg);
    expect(pgEnv.POSTGRES_USER).toBe("postgres");
    // docker-compose config resolves the host path against the project folder.
    expect(arr(pg.volumes, "volumes").map(String).filter((v) => v.endsWith("/deploy/compose/initdb:/docker-entrypoint-initdb.d:ro"))).toHaveLength(1);
    const passwords = new Set<string>();
    for (const name of DATABASE_SERVICES) {
      const url = new URL(environmentOf(obj(services[name], name)).DATABASE_URL ?? "");
      const variable = `POSTGRES_PASSWORD_${name.toUpperCase()}`;
      expect(url.username, name).toBe(name);
      expect(url.password, name).toBe(pgEnv[variable]);
      expect(url.host).toBe("postgres:5432");
      expect(url.pathname).toBe(`/${pgEnv.POSTGRES_DB}`);
      passwords.add(url.password);
    }
    expect(passwords.size).toBe(DATABASE_SERVICES.length);
    expect(passwords.has(pgEnv.POSTGRES_PASSWORD ?? "")).toBe(false);
    for (const name of SERVICES.filter((s) => !DATABASE_SERVICES.includes(s))) expect(environmentOf(obj(services[name], name)).DATABASE_URL, name).toBeUndefined();
  });

  test("a role's password missing from .env stops compose", () => {
    for (const variable of POSTGRES_PASSWORDS) {
      const res = composeConfig(filled.replace(new RegExp(`^${variable}=.*$`, "m"), ""));
      expect(res.status, variable).not.toBe(0);
      expect(res.stderr).toContain(variable);
    }
  });

  test("NATS runs JetStream on a named volume; Postgres on a named volume; both have health checks", () => {
    const services = resolvedServices(filled);
    const nats = obj(services.nats, "nats");
    expect(String(nats.image)).toMatch(/^nats:[\d.]+-alpine@sha256:[0-9a-f]{64}$/);
    const command = arr(nats.command, "command").map(String);
    expect(command).toContain("--jetstream");
    expect(command.join(" ")).toContain("--store_dir /data");
    expect(arr(nats.volumes, "volumes").map(String)).toContain("nats-data:/data:rw");
    expect(JSON.stringify(obj(nats.healthcheck, "healthcheck").test)).toContain("8222/healthz?js-enabled-only=true");

    const pg = obj(services.postgres, "postgres");
    expect(String(pg.image)).toMatch(/^postgres:[\d.]+@sha256:[0-9a-f]{64}$/);
    expect(arr(pg.volumes, "volumes").map(String)).toContain("postgres-data:/var/lib/postgresql/data:rw");
    expect(JSON.stringify(obj(pg.healthcheck, "healthcheck").test)).toContain("pg_isready");
  });

  test("every service's environment parses with its own env.ts once .env is filled in", () => {
    const services = resolvedServices(filled);
    const issues = SERVICES.flatMap((name) => configIssues(name, environmentOf(obj(services[name], name))));
    expect(issues).toEqual([]);
  });

  test("with only the required secrets in .env (Postgres, identity, the bus), compose's own defaults parse too", () => {
    const busLines = [...SERVICES.map((s) => `NATS_NKEY_SEED_${s.toUpperCase().replace(/-/g, "_")}=${createBusKey().seed}`), "BUS_AUTHORIZATION=./bus/authorization.conf"];
    const postgresLines = POSTGRES_PASSWORDS.map((v) => `${v}=${randomBytes(16).toString("hex")}`).join("\n");
    const secretsOnly = `${postgresLines}\nIDENTITY_SECRET=${randomBytes(24).toString("hex")}\n${busLines.join("\n")}\n`;
    const services = resolvedServices(secretsOnly);
    const issues = SERVICES.flatMap((name) => configIssues(name, environmentOf(obj(services[name], name))));
    expect(issues).toEqual([]);
  });

  test("scanner-ingest starts with the process environment npm start gives it (malloc's, not env.ts's)", () => {
    const scanner = environmentOf(obj(resolvedServices(filled)["scanner-ingest"], "scanner-ingest"));
    for (const [name, value] of Object.entries(SCANNER_PROCESS_ENV)) expect(scanner[name], name).toBe(value);
  });

  test("the placeholders stop the stack: every service, identity and postgres refuse .env.example as it is", () => {
    const services = resolvedServices(example);
    const issues = SERVICES.flatMap((name) => configIssues(name, environmentOf(obj(services[name], name))));
    expect(issues.filter((i) => !/^[a-z-]+: NATS_NKEY_SEED: /.test(i))).toEqual([expect.stringMatching(/^identity: IDENTITY_SECRET: /)]);
    expect(issues.filter((i) => /^[a-z-]+: NATS_NKEY_SEED: /.test(i)).map((i) => i.split(":")[0]).sort()).toEqual([...SERVICES].sort());
    // Postgres has no env.ts: its entrypoint refuses the placeholders before initdb.
    const entrypoint = arr(obj(services.postgres, "postgres").entrypoint, "entrypoint").map(String).join(" ");
    expect(entrypoint).toMatch(new RegExp(`-c for p in ${POSTGRES_PASSWORDS.map((v) => `"\\$\\$${v}"`).join("\\s+")}; do case "\\$\\$p" in ${PLACEHOLDER}\\*\\)`));
    expect(entrypoint).toMatch(/exit 1;;\s*esac; done; exec docker-entrypoint\.sh/);
  });
});

describe(".env.example", () => {
  const vars = parseEnvFile(example);
  const commented = parseEnvFile(example.replace(/^# ?/gm, ""));

  test("holds no secret value: secrets are placeholders or empty", () => {
    const leaks = Object.entries(commented).filter(([k, v]) => SECRET_VARIABLE.test(k) && v !== "" && v !== PLACEHOLDER && !/^<.*>$/.test(v));
    expect(leaks).toEqual([]);
    for (const v of POSTGRES_PASSWORDS) expect(vars[v], v).toBe(PLACEHOLDER);
    expect(vars.IDENTITY_SECRET).toBe(PLACEHOLDER);
  });

  test("every placeholder, once uncommented, is refused by the service that reads it", () => {
    const placeholders = Object.entries(commented).filter(([, v]) => v === PLACEHOLDER || /^<.*>$/.test(v));
    expect(placeholders.length).toBeGreaterThan(5);
    const accepted: string[] = [];
    for (const [name, value] of placeholders) {
      if (POSTGRES_PASSWORDS.includes(name)) continue; // refused by the postgres entrypoint (above)
      // NATS_NKEY_SEED_<SERVICE> is that service's NATS_NKEY_SEED (docker-compose.yml).
      const seedOf = SERVICES.find((s) => name === `NATS_NKEY_SEED_${s.toUpperCase().replace(/-/g, "_")}`);
      const readers = seedOf ? [seedOf] : SERVICES.filter((s) => name in ENV_SCHEMAS[s].shape);
      if (readers.length === 0) accepted.push(`${name}: read by no service`);
      for (const s of readers) {
        const field = ENV_SCHEMAS[s].shape[seedOf ? "NATS_NKEY_SEED" : name];
        if (field?.safeParse(value).success !== false) accepted.push(`${s} accepts ${name}=${value}`);
      }
    }
    expect(accepted).toEqual([]);
  });

  test("every variable it sets is read by some service or by compose", () => {
    const compose = readFileSync(path.join(root, "docker-compose.yml"), "utf8");
    const unread = Object.keys(commented).filter((name) => !SERVICES.some((s) => name in ENV_SCHEMAS[s].shape) && !compose.includes(`\${${name}`));
    expect(unread).toEqual([]);
  });
});

test("parseEnvFile reads KEY=value lines only", () => {
  expect(parseEnvFile("# A=1\nB=2\n\nC=x y\nbad line\n")).toEqual({ B: "2", C: "x y" });
  expect(str(parseEnvFile("K=\n").K, "K")).toBe("");
});
