import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort } from "@board/service-kit/testing";
import { launcherEnv } from "./env.js";

/** `npm start` as a newcomer runs it: no DATABASE_URL, no NATS_URL (its own PostgreSQL and nats-server). */
export interface LaunchedStack {
  readonly child: ChildProcess;
  readonly base: string;
  readonly dataDir: string;
  readonly natsUrl: string;
  /** From spawning the launcher to the first 200 of /api/board/free. */
  readonly firstFreeReadMs: number;
  output(): string;
  /** Ctrl-C; resolves with the launcher's exit code. */
  stop(): Promise<number | null>;
}

export async function launchStack(dataDir: string, env: Record<string, string> = {}, timeoutMs = 240_000): Promise<LaunchedStack> {
  const port = await freePort();
  const e = launcherEnv({ PORT: String(port), HEALTH_PORT_BASE: "0", DATA_DIR: dataDir, LOG_LEVEL: "warn", ...env });
  delete e.DATABASE_URL;
  const started = Date.now();
  const child = spawn(process.execPath, ["scripts/start.mjs"], { env: e, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  // The origin the stack names itself by (PUBLIC_BASE_URL's default): sign-in messages are bound to it.
  const base = `http://localhost:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGINT");
    const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const code = await exited;
    clearTimeout(guard);
    return code;
  };
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the launcher exited (${child.exitCode}) before serving:\n${out}`);
      if (Date.now() - started > timeoutMs) throw new Error(`no free read served within ${timeoutMs / 1000} s:\n${out}`);
      if (out.includes("stack ready")) {
        const res = await fetch(`${base}/api/board/free`).catch(() => null);
        if (res?.status === 200) {
          await res.arrayBuffer();
          break;
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const nats = /nats-server with JetStream at (nats:\/\/127\.0\.0\.1:\d+)/.exec(out);
  return { child, base, dataDir, natsUrl: nats?.[1] ?? "", firstFreeReadMs: Date.now() - started, output: () => out, stop };
}

/** The processes the launcher started (its children), with their command lines (Linux /proc). */
export function childrenOf(pid: number): { pid: number; cmdline: string[] }[] {
  const found: { pid: number; cmdline: string[] }[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid !== pid) continue;
      found.push({ pid: Number(entry), cmdline: fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean) });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The pid of the launcher's service `name` (its bundle services/<name>/dist/main.js). */
export function servicePid(launcher: number, name: string): number {
  const bundle = path.join("services", name, "dist", "main.js");
  const p = childrenOf(launcher).find((c) => c.cmdline.some((a) => a.endsWith(bundle)));
  if (!p) throw new Error(`no ${name} process under the launcher (${launcher})`);
  return p.pid;
}

/** The database server's pid, from its lock file, or null when none runs. */
export function databasePid(dataDir: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
