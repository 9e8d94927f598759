import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { BUS_PRINCIPALS, type BusPrincipal } from "@board/proto";
import { createBusKey, natsServerOnPath, publicKeyOfSeed, renderNatsServerConfig } from "@board/service-kit/bus-access";

export interface SpawnedNats {
  url: string;
  child: ChildProcess;
  /** Each principal's nkey seed (services, and the operator: the licence CLI and the readiness wait). */
  seeds: Record<BusPrincipal, string>;
  /** Where the operator's seed is kept, for the licence CLI (NATS_NKEY_SEED_FILE). */
  operatorSeedFile: string;
  /** Starts the server again on the same port, store and credentials after it exited. */
  restart(): Promise<ChildProcess>;
}

/** The nats-server binary on PATH, or null (found as the tests find theirs first). */
export function findNatsServer(): string | null {
  return natsServerOnPath();
}

export const NO_NATS_MESSAGE =
  "No NATS to use: NATS_URL is not set and no nats-server binary is on PATH.\n" +
  "  Either set NATS_URL=nats://host:4222 (a server with JetStream enabled),\n" +
  "  or install nats-server (Debian: apt-get install nats-server; others: https://github.com/nats-io/nats-server/releases)\n" +
  "  and run npm start again.";

/**
 * Starts a private nats-server with JetStream, its data under dataDir/nats, on a free local
 * port, with authorization on as in every deployment: each principal connects with its own
 * nkey and may do only what proto's BUS_GRANTS allows. The seeds are made once per data
 * directory (dataDir/nats/auth, mode 0700, each file 0600) and never printed.
 */
export async function spawnNats(bin: string, dataDir: string): Promise<SpawnedNats> {
  const port = await freePort();
  const natsDir = path.resolve(dataDir, "nats");
  fs.mkdirSync(natsDir, { recursive: true });
  const { seeds, operatorSeedFile } = localBusSeeds(path.join(natsDir, "auth"));
  const conf = path.join(natsDir, "nats-server.conf");
  const users = BUS_PRINCIPALS.map((principal) => ({ principal, nkey: publicKeyOfSeed(seeds[principal]) }));
  fs.writeFileSync(conf, renderNatsServerConfig({ host: "127.0.0.1", port, storeDir: natsDir, users }), { mode: 0o600 });
  const child = await launchNats(bin, conf, port);
  return { url: `nats://127.0.0.1:${port}`, child, seeds, operatorSeedFile, restart: () => launchNats(bin, conf, port) };
}

/** Runs nats-server with conf; resolves once it accepts connections on port. */
async function launchNats(bin: string, conf: string, port: number): Promise<ChildProcess> {
  const child = spawn(bin, ["-c", conf], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null) throw new Error(`nats-server exited: ${stderr.trim()}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error("nats-server did not start within 10 s");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

/** Each principal's seed from dir (`<principal>.nk`), made on first use; never printed. */
export function localBusSeeds(dir: string): { seeds: Record<BusPrincipal, string>; operatorSeedFile: string } {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const seeds = {} as Record<BusPrincipal, string>;
  for (const principal of BUS_PRINCIPALS) {
    const file = path.join(dir, `${principal}.nk`);
    try {
      seeds[principal] = fs.readFileSync(file, "utf8").trim();
      continue;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    seeds[principal] = createBusKey().seed;
    fs.writeFileSync(file, `${seeds[principal]}\n`, { mode: 0o600, flag: "wx" });
  }
  return { seeds, operatorSeedFile: path.join(dir, "operator.nk") };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: "127.0.0.1", port });
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}
