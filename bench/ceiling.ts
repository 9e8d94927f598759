import { fork, type ChildProcess } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import type { BareBody, CeilingReady, CeilingStart } from "./ceiling-server.js";
import { cpuMsOf } from "./processes.js";

export interface BareServer {
  base: string;
  stop(): Promise<void>;
}

export type { BareBody } from "./ceiling-server.js";

/** A ceiling server: how many worker processes serve, and the CPU its processes have used. */
export interface CeilingServer extends BareServer {
  /** 1: one process serving alone; n > 1: a node:cluster primary and n workers sharing one port. */
  workers: number;
  /** CPU ms used so far by all its processes (primary and workers, from /proc), under the key "ceiling". */
  cpuMs(): Record<string, number>;
}

/**
 * The ceiling's shapes, each measured: one process, and a cluster of as many workers as the
 * machine has cores (just one process where it has one core).
 */
export const ceilingWidths = (): number[] => [...new Set([1, os.availableParallelism()])];

const entry = fileURLToPath(new URL("./ceiling-server.ts", import.meta.url));
const START_TIMEOUT_MS = 60_000;

/**
 * node:http alone, answering each path with fixed bytes, in processes of its own (never the
 * bench's main thread, which also runs the bench): one process when `workers` is 1, otherwise
 * a node:cluster of `workers` processes sharing the port. The faster of the two is the most
 * this machine serves those bytes at.
 */
export async function startBareServer(bodies: ReadonlyMap<string, BareBody>, workers = 1): Promise<CeilingServer> {
  const child = fork(entry, [], { execArgv: ["--import", "tsx"], serialization: "advanced", stdio: ["ignore", "ignore", "pipe", "ipc"] });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  try {
    const ready = await new Promise<{ port: number; pids: number[] }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the ceiling server (${workers} workers) did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      child.once("exit", (code, signal) => reject(new Error(`the ceiling server exited (${signal ?? code}): ${stderr.trim()}`)));
      child.on("message", (msg: "hello" | CeilingReady) => {
        if (msg === "hello") {
          child.send({ bodies: [...bodies], workers } satisfies CeilingStart);
          return;
        }
        clearTimeout(timer);
        if ("error" in msg) reject(new Error(`the ceiling server (${workers} workers): ${msg.error}`));
        else resolve(msg);
      });
    });
    return {
      base: `http://127.0.0.1:${ready.port}`,
      workers,
      cpuMs: () => {
        let ms = 0;
        for (const pid of ready.pids) ms += cpuMsOf(pid) ?? 0;
        return { ceiling: ms };
      },
      stop: () => terminate(child),
    };
  } catch (err) {
    await terminate(child);
    throw err;
  }
}

/** SIGTERM (a cluster's primary stops its workers first), SIGKILL after 10 s. */
function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
