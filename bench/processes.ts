import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { pingEndpoint, type ServiceName } from "@board/proto";
import { freePort, freshDatabase, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { NO_BURST, publishBenchBoards, resetBenchStreams, untilServing } from "./boards.js";
import { benchBusEnv, benchBusOptions, type BenchInfra } from "./infra.js";

const root = fileURLToPath(new URL("..", import.meta.url));
/** Linux's clock ticks per second for /proc/<pid>/stat (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** CPU milliseconds a process has used so far (user + system, from /proc/<pid>/stat); null when unreadable. */
export function cpuMsOf(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    // Not Linux, or the process just ended: no figure for it.
    return null;
  }
}

/**
 * The stack as production runs it: gateway, board, identity, metering and payments each in
 * its own process (node with tsx, as `npm start` runs them), on the bench's NATS and a fresh
 * Postgres database. Each process's CPU time is read from /proc, so every row can say what a
 * request cost each service.
 */
export class BenchProcesses {
  nc!: NatsConnection;
  db!: TestDatabase;
  private port = 0;
  private readonly children = new Map<ServiceName, ChildProcess>();

  constructor(private readonly infra: BenchInfra) {}

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.nc = await connect(benchBusOptions(this.infra));
    await resetBenchStreams(this.nc);
    this.db = await freshDatabase(this.infra.databaseUrl);
    this.port = await freePort();
    const identitySecret = randomBytes(32).toString("base64url");
    // One at a time: each applies its migrations first, and four at once would share the two cores with tsx's compile.
    await this.spawn("metering", NO_BURST);
    await this.spawn("identity", { IDENTITY_SECRET: identitySecret });
    await this.spawn("board", {});
    await this.spawn("gateway", { PORT: String(this.port), HOST: "127.0.0.1", BUS_TIMEOUT_MS: "2000" });
    await publishBenchBoards(this.nc);
    await untilServing(this.base);
  }

  /** (Re)starts the payments process with `env` (rails, payTo, keys, verifier). */
  async startPayments(env: Record<string, string>): Promise<void> {
    await this.stopPayments();
    await this.spawn("payments", { RECEIPT_SECRET: this.receiptSecret, ...env });
  }

  /** One per stack: a restarted payments opens the receipt keys it made. */
  private readonly receiptSecret = randomBytes(32).toString("base64url");

  async stopPayments(): Promise<void> {
    await this.terminate("payments");
  }

  async stop(): Promise<void> {
    for (const name of ["gateway", "payments", "board", "identity", "metering"] as const) await this.terminate(name);
    await this.nc?.close();
    await this.db?.drop();
  }

  /** CPU milliseconds each service process has used so far (user + system, from /proc). */
  cpuMs(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, child] of this.children) {
      if (child.pid === undefined || child.exitCode !== null) continue;
      const ms = cpuMsOf(child.pid);
      if (ms !== null) out[name] = ms;
    }
    return out;
  }

  private async spawn(name: ServiceName, env: Record<string, string>): Promise<void> {
    const profile = this.infra.cpuProfile?.service === name ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(root, this.infra.cpuProfile.dir)}`] : [];
    const child = spawn(process.execPath, [...profile, "--import", "tsx", path.join(root, "services", name, "src", "main.ts")], {
      cwd: root,
      stdio: ["ignore", "ignore", "pipe"],
      env: {
        PATH: this.infra.path,
        ...benchBusEnv(this.infra, name),
        DATABASE_URL: this.db.url,
        HEALTH_PORT: "0",
        LOG_LEVEL: "warn",
        PUBLIC_BASE_URL: this.base,
        INSTANCE_ID: `bench-${name}`,
        ...env,
      },
    });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    this.children.set(name, child);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}): ${stderr.trim()}`);
      try {
        await this.nc.request(pingEndpoint(name).subject, new Uint8Array(0), { timeout: 500 });
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`${name} did not answer its ping within 60 s: ${stderr.trim()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  private async terminate(name: ServiceName): Promise<void> {
    const child = this.children.get(name);
    this.children.delete(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
      child.once("exit", () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill("SIGTERM");
    });
  }

}
