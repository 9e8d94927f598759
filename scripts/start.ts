/**
 * `npm start`: the whole stack on one machine. NATS from NATS_URL, else a private
 * nats-server; Postgres from DATABASE_URL, else each service's embedded PGlite. Every
 * service runs as its own process; Ctrl-C stops them all.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICE_NAMES, pingEndpoint } from "@board/proto";
import { connect } from "nats";
import { inheritedEnv, launcherEnv } from "./launcher/env.js";
import { findNatsServer, NO_NATS_MESSAGE, spawnNats } from "./launcher/nats.js";
import { localIdentitySecret } from "./launcher/secrets.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const say = (line: string) => process.stdout.write(`[launcher] ${line}\n`);

async function main() {
  const started = Date.now();
  const env = launcherEnv();
  const children: { name: string; child: ChildProcess }[] = [];
  let stopping = false;

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say("stopping every process");
    // Services first, the bus last, so nothing loses NATS while it drains.
    const services = children.filter((c) => c.name !== "nats-server");
    await Promise.all(services.map((c) => terminate(c.child)));
    await Promise.all(children.filter((c) => c.name === "nats-server").map((c) => terminate(c.child)));
    process.exit(code);
  };
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));

  let natsUrl = env.NATS_URL;
  if (!natsUrl) {
    const bin = findNatsServer();
    if (!bin) {
      process.stderr.write(`${NO_NATS_MESSAGE}\n`);
      process.exit(2);
    }
    const nats = await spawnNats(bin, env.DATA_DIR);
    children.push({ name: "nats-server", child: nats.child });
    natsUrl = nats.url;
    say(`started nats-server with JetStream at ${natsUrl} (data in ${path.join(env.DATA_DIR, "nats")})`);
  }
  say(env.DATABASE_URL ? "Postgres from DATABASE_URL" : `no DATABASE_URL: each service uses embedded PGlite under ${env.DATA_DIR}/`);

  const identitySecret = env.IDENTITY_SECRET ?? localIdentitySecret(path.resolve(root, env.DATA_DIR));
  if (!env.IDENTITY_SECRET) say(`no IDENTITY_SECRET: using this machine's own, kept in ${env.DATA_DIR}/identity.secret`);

  SERVICE_NAMES.forEach((name, i) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "services", name, "src", "main.ts")], {
      cwd: root,
      stdio: "inherit",
      env: {
        ...inheritedEnv(),
        IDENTITY_SECRET: identitySecret,
        NATS_URL: natsUrl,
        DATA_DIR: path.resolve(root, env.DATA_DIR),
        PORT: String(env.PORT),
        HEALTH_PORT: String(env.HEALTH_PORT_BASE === 0 ? 0 : env.HEALTH_PORT_BASE + i),
      },
    });
    child.once("exit", (code, signal) => {
      if (stopping) return;
      process.stderr.write(`[launcher] ${name} exited (${signal ?? `code ${code}`}); stopping the stack\n`);
      void stopAll(1);
    });
    children.push({ name, child });
  });

  await waitForPings(natsUrl, env.START_TIMEOUT_SECONDS * 1000);
  say(`all ${SERVICE_NAMES.length} services ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  say(`stack ready: http://127.0.0.1:${env.PORT}/api/board/free`);
}

/** Every service answers its ping on the bus: it is connected, registered and serving. */
async function waitForPings(natsUrl: string, timeoutMs: number) {
  const nc = await connect({ servers: natsUrl, waitOnFirstConnect: true });
  const deadline = Date.now() + timeoutMs;
  try {
    for (const name of SERVICE_NAMES) {
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
