/**
 * `npm start`: the whole stack on one machine. NATS from NATS_URL, else a private
 * nats-server; Postgres from DATABASE_URL, else one embedded PGlite served to every service;
 * payment rails from the environment, else local development chains (no real money). Every
 * service runs as its own process; Ctrl-C stops them all.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { inboxPrefixOf, SERVICE_NAMES, pingEndpoint, type BusPrincipal, type ServiceName } from "@board/proto";
import { connect, nkeyAuthenticator } from "nats";
import { givenBusSeeds, inheritedEnv, launcherEnv } from "./launcher/env.js";
import { bundleServices } from "./launcher/bundles.js";
import { startEmbeddedDatabase } from "./launcher/database.js";
import { RAIL_VARIABLES, type DevChains } from "./launcher/rails.js";
import { findNatsServer, NO_NATS_MESSAGE, spawnNats } from "./launcher/nats.js";
import { localSecret } from "./launcher/secrets.js";

/** The repository root: the first folder up with turbo.json (this file runs from scripts/ or, bundled, scripts/dist/). */
function repoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "turbo.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no repository root above ${from}`);
  }
}
const root = repoRoot(path.dirname(fileURLToPath(import.meta.url)));
const say = (line: string) => process.stdout.write(`[launcher] ${line}\n`);

async function main() {
  const started = Date.now();
  const env = launcherEnv();
  const children: { name: string; child: ChildProcess }[] = [];
  /** What the launcher runs in its own process (the embedded database, development chains), stopped after the services. */
  const owned: { name: string; stop(): Promise<void> }[] = [];
  let stopping = false;

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("stopping every process");
    // Services first, then what they used (database, chains), the bus last, so nothing loses NATS while it drains.
    const services = children.filter((c) => c.name !== "nats-server");
    await Promise.all(services.map((c) => terminate(c.child)));
    await Promise.allSettled(owned.map((o) => o.stop()));
    await Promise.all(children.filter((c) => c.name === "nats-server").map((c) => terminate(c.child)));
    process.exit(code);
  };
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));

  const dataDir = path.resolve(root, env.DATA_DIR);
  const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`;
  const railsConfigured = RAIL_VARIABLES.filter((name) => env[name] !== undefined);
  const wantChains = railsConfigured.length === 0 && env.DEV_CHAINS === "auto";

  // The bus, the database, the services' bundles and the chains do not wait for each other.
  const natsReady = (async (): Promise<Bus> => {
    if (env.NATS_URL) return { url: env.NATS_URL, seeds: givenBusSeeds(env) };
    const bin = findNatsServer();
    if (!bin) {
      process.stderr.write(`${NO_NATS_MESSAGE}\n`);
      process.exit(2);
    }
    const nats = await spawnNats(bin, env.DATA_DIR);
    children.push({ name: "nats-server", child: nats.child });
    say(`started nats-server with JetStream at ${nats.url} (data in ${path.join(env.DATA_DIR, "nats")})`);
    say(`the bus has authorization on: each service has its own nkey (${path.relative(root, path.dirname(nats.operatorSeedFile))}); licences: NATS_URL=${nats.url} NATS_NKEY_SEED_FILE=${path.relative(root, nats.operatorSeedFile)} npm run license -- list`);
    return { url: nats.url, seeds: nats.seeds };
  })();
  const databaseReady = (async () => {
    if (env.DATABASE_URL) {
      say("Postgres from DATABASE_URL");
      return env.DATABASE_URL;
    }
    const t0 = Date.now();
    const db = await startEmbeddedDatabase(dataDir);
    owned.push({ name: "database", stop: db.stop });
    say(`no DATABASE_URL: one embedded PGlite for every service (data in ${path.join(env.DATA_DIR, "pglite")}), ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return db.url;
  })();
  const bundlesReady = bundleServices(root, SERVICE_NAMES);
  const chainsReady = (async (): Promise<DevChains | null> => {
    if (!wantChains) {
      say(
        railsConfigured.length === 0
          ? "DEV_CHAINS=off and no payment rail configured: paid routes answer 402 with nothing to pay with"
          : `payment rails from the environment (${railsConfigured.join(", ")}); no development chain started`,
      );
      return null;
    }
    const t0 = Date.now();
    const walletsFile = path.join(dataDir, "dev-wallets.json");
    const { startDevChains } = await import("./launcher/dev-chains.js");
    const dev = await startDevChains({ gateway: publicBaseUrl, walletsFile });
    owned.unshift({ name: "development chains", stop: dev.stop });
    announceDevelopment(walletsFile, (Date.now() - t0) / 1000);
    return dev;
  })();

  const identitySecret = env.IDENTITY_SECRET ?? localSecret(dataDir, "identity");
  if (!env.IDENTITY_SECRET) say(`no IDENTITY_SECRET: using this machine's own, kept in ${env.DATA_DIR}/identity.secret`);
  const receiptSecret = env.RECEIPT_SECRET ?? localSecret(dataDir, "receipt");
  if (!env.RECEIPT_SECRET) say(`no RECEIPT_SECRET: using this machine's own, kept in ${env.DATA_DIR}/receipt.secret`);

  // Awaited below; until then a failure must not surface as an unhandled rejection.
  for (const later of [databaseReady, chainsReady]) later.catch(() => undefined);
  const [bus, bundles] = await Promise.all([natsReady, bundlesReady]);
  const natsUrl = bus.url;
  const spawnService = (name: (typeof SERVICE_NAMES)[number], extra: Record<string, string> = {}) => {
    const i = SERVICE_NAMES.indexOf(name);
    // A 1 MB young generation: the services allocate little per request, and the default 16 MB
    // per process was a seventh of the development stack's memory (measured). Source maps are not
    // loaded (about 40 MB across the six, measured): the bundles are unminified, so a stack still
    // names the function and file; NODE_OPTIONS=--enable-source-maps maps it back to TypeScript.
    // --expose-gc: scanner-ingest collects after each scan (services/scanner-ingest/src/start.ts).
    const child = spawn(process.execPath, ["--max-semi-space-size=1", "--expose-gc", bundles.get(name)!], {
      cwd: root,
      stdio: "inherit",
      env: {
        ...inheritedEnv(),
        IDENTITY_SECRET: identitySecret,
        NATS_URL: natsUrl,
        ...(bus.seeds[name] ? { NATS_NKEY_SEED: bus.seeds[name] } : {}),
        DATA_DIR: dataDir,
        PORT: String(env.PORT),
        PUBLIC_BASE_URL: publicBaseUrl,
        HEALTH_PORT: String(env.HEALTH_PORT_BASE === 0 ? 0 : env.HEALTH_PORT_BASE + i),
        ...extra,
      },
    });
    child.once("exit", (code, signal) => {
      if (stopping) return;
      process.stderr.write(`[launcher] ${name} exited (${signal ?? `code ${code}`}); stopping the stack\n`);
      void stopAll(1);
    });
    children.push({ name, child });
  };
  // What a first read needs starts first: the gateway with the bus, board, metering and identity
  // as soon as the database answers, payments (the only holder of the development chains' keys)
  // once those run too. The scanner, which scores two boards as it starts (seconds of CPU on two
  // cores), starts once the board answers: the board serves its stored publication meanwhile.
  spawnService("gateway");
  const databaseUrl = await databaseReady;
  for (const name of ["board", "metering", "identity"] as const) spawnService(name, { DATABASE_URL: databaseUrl });
  const dev = await chainsReady;
  spawnService("payments", { DATABASE_URL: databaseUrl, RECEIPT_SECRET: receiptSecret, ...dev?.env });
  await waitForPings(bus, env.START_TIMEOUT_SECONDS * 1000, ["board"]);
  spawnService("scanner-ingest");

  await waitForPings(bus, env.START_TIMEOUT_SECONDS * 1000);
  say(`all ${SERVICE_NAMES.length} services ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  say(`stack ready: http://127.0.0.1:${env.PORT}/api/board/free`);
  if (dev) say("buy a read: npm run buy -- /api/board/regime   (rails: --rail base|solana|algorand|batched|mpp)");
}

/** The bus the services connect to, and the credential of each principal (none: a bus without authorization). */
interface Bus {
  url: string;
  seeds: Partial<Record<BusPrincipal, string>>;
}

/** Loud, so nobody mistakes the development chains for real payments. */
function announceDevelopment(walletsFile: string, seconds: number) {
  const bar = "=".repeat(78);
  process.stdout.write(
    [
      bar,
      "  DEVELOPMENT PAYMENTS: no payment rail is configured, so every rail runs against local",
      "  chains started here (Base and Solana: local chains; Algorand and Circle Gateway: stand-ins).",
      "  NO REAL MONEY. Funded buyer wallets for each rail: " + path.relative(process.cwd(), walletsFile) + " (mode 0600).",
      "  Configure a real rail (PAY_TO_BASE, ...) or set DEV_CHAINS=off to turn this off.",
      `  (development chains ready in ${seconds.toFixed(1)} s)`,
      bar,
    ].join("\n") + "\n",
  );
}

/** Every service answers its ping on the bus: it is connected, registered and serving. */
async function waitForPings(bus: Bus, timeoutMs: number, services: readonly ServiceName[] = SERVICE_NAMES) {
  // As the operator: the one principal allowed to ping every service.
  const operator = bus.seeds.operator;
  const nc = await connect({
    servers: bus.url,
    waitOnFirstConnect: true,
    ...(operator ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(operator)), inboxPrefix: inboxPrefixOf("operator") } : {}),
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (const name of services) {
      for (;;) {
        try {
          await nc.request(pingEndpoint(name).subject, new Uint8Array(0), { timeout: 1000 });
          break;
        } catch {
          if (Date.now() > deadline) throw new Error(`${name} did not answer its ping within ${timeoutMs / 1000} s`);
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    }
  } finally {
    await nc.close();
  }
}

function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`[launcher] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
