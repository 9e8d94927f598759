import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export interface SpawnedNats {
  url: string;
  child: ChildProcess;
}

/** The nats-server binary on PATH, or null. */
export function findNatsServer(): string | null {
  const r = spawnSync("sh", ["-c", "command -v nats-server"], { encoding: "utf8" });
  const bin = r.stdout.trim();
  return r.status === 0 && bin ? bin : null;
}

export const NO_NATS_MESSAGE =
  "No NATS to use: NATS_URL is not set and no nats-server binary is on PATH.\n" +
  "  Either set NATS_URL=nats://host:4222 (a server with JetStream enabled),\n" +
  "  or install nats-server (Debian: apt-get install nats-server; others: https://github.com/nats-io/nats-server/releases)\n" +
  "  and run npm start again.";

/** Starts a private nats-server with JetStream, its data under dataDir/nats, on a free local port. */
export async function spawnNats(bin: string, dataDir: string): Promise<SpawnedNats> {
  const port = await freePort();
  const storeDir = path.resolve(dataDir, "nats");
  fs.mkdirSync(storeDir, { recursive: true });
  const child = spawn(bin, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const deadline = Date.now() + 10_000;
  while (!(await answers(port))) {
    if (child.exitCode !== null) throw new Error(`nats-server exited: ${stderr.trim()}`);
    if (Date.now() > deadline) throw new Error("nats-server did not start within 10 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `nats://127.0.0.1:${port}`, child };
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
