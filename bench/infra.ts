import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { findNatsServer, NO_NATS_MESSAGE, spawnNats } from "../scripts/launcher/nats.js";
import type { BenchEnv } from "./env.js";

export interface BenchInfra {
  natsUrl: string;
  databaseUrl: string;
  /** "environment" (NATS_URL) or "private nats-server". */
  nats: string;
  /** PATH for the service processes the bench starts. */
  path: string;
  stop(): Promise<void>;
}

/** NATS_URL when set, else a private nats-server on a free port with its store in a temp dir; Postgres from DATABASE_URL. */
export async function benchInfra(env: BenchEnv): Promise<BenchInfra> {
  if (env.NATS_URL) return { natsUrl: env.NATS_URL, databaseUrl: env.DATABASE_URL, nats: "environment", path: env.PATH, stop: async () => {} };
  const bin = findNatsServer();
  if (!bin) throw new Error(NO_NATS_MESSAGE);
  const dir = await mkdtemp(path.join(os.tmpdir(), "board-bench-"));
  const nats = await spawnNats(bin, dir);
  return {
    natsUrl: nats.url,
    databaseUrl: env.DATABASE_URL,
    nats: "private nats-server",
    path: env.PATH,
    async stop() {
      if (nats.child.exitCode === null) {
        const exited = new Promise((resolve) => nats.child.once("exit", resolve));
        nats.child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
