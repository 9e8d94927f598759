import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { BUS_PRINCIPALS, inboxPrefixOf, type BusPrincipal } from "@board/proto";
import { nkeyAuthenticator, type ConnectionOptions } from "nats";
import { createBusKey, natsServerOnPath, renderNatsServerConfig } from "../bus-access.js";
import { freePort } from "./port.js";
import { killHard, portAnswers } from "./processes.js";

/** Who a test connects as: a principal of the system, or the suite's own unrestricted user. */
export type TestBusUser = BusPrincipal | "admin";
/** Each principal's seed and the admin's: what a bus with authorization on needs from its clients. */
export type BusSeeds = Record<TestBusUser, string>;

/** The nats-server binary: on PATH, else Debian's place; null when there is none. */
export function natsServerBinary(): string | null {
  return natsServerOnPath() ?? (existsSync("/usr/sbin/nats-server") ? "/usr/sbin/nats-server" : null);
}

/**
 * A nats-server of the tests' own, with JetStream and authorization on as in every deployment
 * (each principal's permissions from proto's BUS_GRANTS, rendered by the deployments' renderer),
 * plus an unrestricted "admin" user for the tests' own connections (publishing fixtures,
 * calling endpoints as a stranger would not be allowed to). Its port and store stay the same
 * across kill() and up(), so a fault test can restart "the same server".
 */
export class TestNatsServer {
  private child: ChildProcess | null = null;
  private stderr = "";
  /** The unfinished last line of what the server wrote. */
  private partial = "";
  /**
   * Every permission or authorization violation the server logged since it started, one line
   * each (it names the client): kept whole, where `log` keeps only what was written lately.
   */
  readonly violations: string[] = [];
  private constructor(
    private readonly bin: string,
    readonly port: number,
    private readonly dir: string,
    readonly seeds: BusSeeds,
  ) {}

  static async start(bin = natsServerBinary()): Promise<TestNatsServer> {
    if (!bin) throw new Error("no nats-server binary (PATH or /usr/sbin/nats-server): install nats-server");
    const keys = Object.fromEntries([...BUS_PRINCIPALS, "admin"].map((p) => [p, createBusKey()])) as Record<TestBusUser, ReturnType<typeof createBusKey>>;
    const seeds = Object.fromEntries(Object.entries(keys).map(([p, k]) => [p, k.seed])) as BusSeeds;
    const server = new TestNatsServer(bin, await freePort(), mkdtempSync(path.join(tmpdir(), "test-nats-")), seeds);
    const users = BUS_PRINCIPALS.map((principal) => ({ principal, nkey: keys[principal].publicKey }));
    writeFileSync(
      path.join(server.dir, "nats.conf"),
      renderNatsServerConfig({ host: "127.0.0.1", port: server.port, storeDir: path.join(server.dir, "jetstream"), users, admin: keys.admin.publicKey }),
    );
    await server.up();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Whether the server process runs (not killed). */
  get running(): boolean {
    return this.child !== null;
  }

  /** What the server wrote lately (it logs each permission violation with the client's name). */
  get log(): string {
    return this.stderr;
  }

  async up(): Promise<void> {
    const child = spawn(this.bin, ["-c", path.join(this.dir, "nats.conf")], { stdio: ["ignore", "ignore", "pipe"] });
    this.partial = "";
    child.stderr?.on("data", (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-20_000);
      const lines = (this.partial + d.toString()).split("\n");
      this.partial = lines.pop() ?? "";
      for (const line of lines) if (/Violation/i.test(line)) this.violations.push(line);
    });
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await portAnswers(this.port))) {
      if (child.exitCode !== null) throw new Error(`nats-server exited: ${this.stderr.trim().slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`nats-server did not listen within 10 s: ${this.stderr.trim().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** SIGKILL: no lame-duck mode, no goodbye to the clients. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child) await killHard(child);
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A service's bus settings on a server with these seeds: the URL and its own credential (none when the bus has no authorization); "admin" for a test's own service on subjects of its own. */
export function busEnvOf(url: string, seeds: Partial<BusSeeds> | undefined, principal: TestBusUser): { NATS_URL: string; NATS_NKEY_SEED?: string } {
  const seed = seeds?.[principal];
  return seed ? { NATS_URL: url, NATS_NKEY_SEED: seed } : { NATS_URL: url };
}

/** nats.js connection options for a test's own connection as `user` (the admin by default) on such a server. */
export function busOptionsOf(url: string, seeds: Partial<BusSeeds> | undefined, user: TestBusUser = "admin"): ConnectionOptions {
  const seed = seeds?.[user];
  if (!seed) return { servers: url };
  return { servers: url, authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)), ...(user === "admin" ? {} : { inboxPrefix: inboxPrefixOf(user) }) };
}
