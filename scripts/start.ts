/**
 * `npm start`: the whole stack on one machine. NATS from NATS_URL, else a private
 * nats-server; Postgres from DATABASE_URL, else a PostgreSQL server of its own with a role per
 * service; payment rails from the environment, else local development chains (no real money).
 * Every service runs as its own process, restarted if it exits after it was ready; Ctrl-C
 * stops them all.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { inboxPrefixOf, SERVICE_NAMES, pingEndpoint, type BusPrincipal, type ServiceName } from "@board/proto";
import { ensureBusStreams } from "@board/service-kit/jetstream";
import { connect, nkeyAuthenticator } from "nats";
import { givenBusSeeds, inheritedEnv, launcherEnv } from "./launcher/env.js";
import { bundleServices } from "./launcher/bundles.js";
import { DATA_SERVICES, startStackDatabase, type DataService, type StackDatabase } from "./launcher/database.js";
import { SERVER_MAJOR } from "./launcher/database-server.js";
import { Supervisor } from "./launcher/supervisor.js";
import { forgetStack, recordStack, stopLeftovers } from "./launcher/leftovers.js";
import { RAIL_VARIABLES, type DevChains } from "./launcher/rails.js";
import { findNatsServer, NO_NATS_MESSAGE, spawnNats } from "./launcher/nats.js";
import { localSecret } from "./launcher/secrets.js";
import { SCANNER_PROCESS_ENV } from "../services/scanner-ingest/src/process-env.js";

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
  const dataDir = path.resolve(root, env.DATA_DIR);
  /** What the launcher runs in its own process (development chains), stopped after the services. */
  const owned: { name: string; stop(): Promise<void> }[] = [];
  let stopping = false;
  let database: StackDatabase | null = null;
  /** The database server's start while it runs: a stop waits for it, so no server is left behind. */
  let databaseStarting: Promise<unknown> = Promise.resolve();
  const supervisor = new Supervisor({
    say,
    stopping: () => stopping,
    // The database server is not on the list: its own lock file finds it (database-server.ts).
    changed: () => recordStack(dataDir, [...supervisor.children].filter(([name]) => name !== "database").flatMap(([, c]) => (c.pid ? [c.pid] : []))),
    failed: (_name, why) => {
      process.stderr.write(`[launcher] ${why}; stopping the stack\n`);
      void stopAll(1);
    },
  });

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("stopping every process");
    // Services first, then what they used (chains, database), the bus last, so nothing loses NATS while it drains.
    const running = [...supervisor.children];
    await Promise.all(running.filter(([name]) => !INFRASTRUCTURE.has(name)).map(([, child]) => terminate(child)));
    await Promise.allSettled(owned.map((o) => o.stop()));
    await databaseStarting.catch(() => undefined);
    if (database) await database.stop();
    await Promise.all(running.filter(([name]) => name === "nats-server").map(([, child]) => terminate(child)));
    forgetStack(dataDir);
    process.exit(code);
  };
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));
  // A start that fails after the first process is up stops what it started, never leaves it running.
  try {
    await stopLeftovers(dataDir, say);

    const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`;
    const railsConfigured = RAIL_VARIABLES.filter((name) => env[name] !== undefined);
    const wantChains = railsConfigured.length === 0 && env.DEV_CHAINS === "auto";

    // The bus, the database, the services' bundles and the chains do not wait for each other.
    const natsReady = (async (): Promise<Bus> => {
      if (env.NATS_URL) {
        const bus = { url: env.NATS_URL, seeds: givenBusSeeds(env) };
        await createStreams(bus);
        return bus;
      }
      const bin = findNatsServer();
      if (!bin) {
        process.stderr.write(`${NO_NATS_MESSAGE}\n`);
        process.exit(2);
      }
      const nats = await spawnNats(bin, env.DATA_DIR);
      supervisor.watchProcess({ name: "nats-server", restart: nats.restart }, nats.child, { ready: true });
      say(`started nats-server with JetStream at ${nats.url} (data in ${path.join(env.DATA_DIR, "nats")})`);
      say(`the bus has authorization on: each service has its own nkey (${path.relative(root, path.dirname(nats.operatorSeedFile))}); licences: NATS_URL=${nats.url} NATS_NKEY_SEED_FILE=${path.relative(root, nats.operatorSeedFile)} npm run license -- list`);
      const bus = { url: nats.url, seeds: nats.seeds };
      await createStreams(bus);
      return bus;
    })();
    const databaseReady = (async (): Promise<Record<DataService, string>> => {
      if (env.DATABASE_URL) {
        say("Postgres from DATABASE_URL");
        return Object.fromEntries(DATA_SERVICES.map((s) => [s, env.DATABASE_URL!])) as Record<DataService, string>;
      }
      const t0 = Date.now();
      const starting = startStackDatabase(dataDir, say);
      databaseStarting = starting;
      const db = await starting;
      database = db;
      if (stopping) throw new Error("stopping");
      supervisor.watchProcess({ name: "database", restart: db.restart }, db.child, { ready: true });
      say(
        `no DATABASE_URL: PostgreSQL ${SERVER_MAJOR} of its own (data in ${path.join(env.DATA_DIR, "postgres")}, log ${path.join(env.DATA_DIR, "postgres.log")}), ` +
          `a role per service, ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
      return db.urls;
    })();
    const bundlesReady = bundleServices(root, SERVICE_NAMES);
    const startChains = async (): Promise<DevChains | null> => {
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
    };

    const identitySecret = env.IDENTITY_SECRET ?? localSecret(dataDir, "identity");
    if (!env.IDENTITY_SECRET) say(`no IDENTITY_SECRET: using this machine's own, kept in ${env.DATA_DIR}/identity.secret`);
    const receiptSecret = env.RECEIPT_SECRET ?? localSecret(dataDir, "receipt");
    if (!env.RECEIPT_SECRET) say(`no RECEIPT_SECRET: using this machine's own, kept in ${env.DATA_DIR}/receipt.secret`);

    // Awaited below; until then a failure must not surface as an unhandled rejection.
    databaseReady.catch(() => undefined);
    const [bus, bundles] = await Promise.all([natsReady, bundlesReady]);
    const natsUrl = bus.url;
    const spawnChild = (name: ServiceName, extra: Record<string, string>): ChildProcess => {
      const i = SERVICE_NAMES.indexOf(name);
      // A 1 MB young generation: the services allocate little per request, and the default 16 MB
      // per process was a seventh of the development stack's memory (measured). Source maps are not
      // loaded (about 40 MB across the six, measured): the bundles are unminified, so a stack still
      // names the function and file; NODE_OPTIONS=--enable-source-maps maps it back to TypeScript.
      // --expose-gc: scanner-ingest collects after each scan (services/scanner-ingest/src/start.ts).
      return spawn(process.execPath, ["--max-semi-space-size=1", "--expose-gc", bundles.get(name)!], {
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
    };
    const spawnService = (name: ServiceName, extra: Record<string, string> = {}) => {
      const restart = async () => {
        const child = spawnChild(name, extra);
        const exited = new Promise<never>((_, reject) => child.once("exit", (code, signal) => reject(new Error(`exited (${signal ?? `code ${code}`})`))));
        exited.catch(() => undefined);
        try {
          await Promise.race([waitForPings(bus, env.START_TIMEOUT_SECONDS * 1000, [name]), exited]);
        } catch (err) {
          child.kill("SIGKILL");
          throw err;
        }
        return child;
      };
      supervisor.watchProcess({ name, restart }, spawnChild(name, extra));
    };
    // What a first read needs starts first: the gateway with the bus, board, metering and identity
    // as soon as the database answers. Once the board answers (it serves its stored publication),
    // the scanner, which scores two boards as it starts, and the development chains (seconds of
    // CPU each on two cores) start beside each other, and payments (the only holder of the
    // chains' keys) once the chains run.
    spawnService("gateway");
    const databaseUrls = await databaseReady;
    for (const name of ["board", "metering", "identity"] as const) spawnService(name, { DATABASE_URL: databaseUrls[name] });
    await waitForPings(bus, env.START_TIMEOUT_SECONDS * 1000, ["board"]);
    const chainsReady = startChains();
    spawnService("scanner-ingest", SCANNER_PROCESS_ENV);
    const dev = await chainsReady;
    spawnService("payments", { DATABASE_URL: databaseUrls.payments, RECEIPT_SECRET: receiptSecret, ...dev?.env });

    await waitForPings(bus, env.START_TIMEOUT_SECONDS * 1000);
    // From here an exit is an outage to restart from, not a start that failed.
    for (const name of SERVICE_NAMES) supervisor.markReady(name);
    say(`all ${SERVICE_NAMES.length} services ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    say(`stack ready: http://127.0.0.1:${env.PORT}/api/board/free`);
    if (dev) say("buy a read: npm run buy -- /api/board/regime   (rails: --rail base|solana|algorand|batched|mpp)");
  } catch (err) {
    process.stderr.write(`[launcher] ${err instanceof Error ? err.message : String(err)}\n`);
    await stopAll(1);
  }
}

/** Processes the services depend on, stopped after them. */
const INFRASTRUCTURE = new Set(["nats-server", "database"]);

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

/** The deploy step's share of the launcher: the bus's streams, made as the operator (services may only use them). */
async function createStreams(bus: Bus) {
  const nc = await operatorConnection(bus);
  try {
    await ensureBusStreams(nc);
  } finally {
    await nc.close();
  }
}

/** A connection as the operator (the one principal allowed to ping every service and make streams), or plain on a bus without authorization. */
function operatorConnection(bus: Bus) {
  const operator = bus.seeds.operator;
  return connect({
    servers: bus.url,
    waitOnFirstConnect: true,
    ...(operator ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(operator)), inboxPrefix: inboxPrefixOf("operator") } : {}),
  });
}

/** Every service answers its ping on the bus: it is connected, registered and serving. */
async function waitForPings(bus: Bus, timeoutMs: number, services: readonly ServiceName[] = SERVICE_NAMES) {
  const nc = await operatorConnection(bus);
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
