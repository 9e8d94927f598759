/**
 * What the shared burst limit costs a metered read: metering.v1.consume answered by one
 * metering replica, then by three (each check spent in the replica owning the principal's
 * bucket, so two checks in three take one more bus round trip), from a load generator in
 * this process, as the gateway sends them (the queue group spreads them). Not part of
 * `npm run bench`: it measures metering alone.
 *
 *   npx tsx bench/burst.ts                       # private nats-server, ~1 min
 *   npx tsx bench/burst.ts --seconds 5 --rate 1000
 *   npx tsx bench/burst.ts --main /tmp/base/services/metering/src/main.ts   # another build (before/after)
 *
 * Rows: `paced` sends --rate checks/s (latency without queueing: the cost a read pays),
 * `closed` keeps --lanes in flight (throughput, and metering's CPU per check from /proc).
 * Each with one hot principal (one licence, as the stack bench's licensed rows) and with
 * --keys principals. Licensed checks get a burst that never refuses (what is timed is the
 * check, not refusals); before each replica count is measured, a flood of anonymous checks
 * of one client address shows the documented burst (DEFAULT_BURST.anonymous) holds.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_BURST, inboxPrefixOf, meteringConsume, pingEndpoint } from "@board/proto";
import { request } from "@board/service-kit";
import { freshDatabase } from "@board/service-kit/testing";
import { connect, nkeyAuthenticator } from "nats";
import { z } from "zod";
import { findNatsServer, NO_NATS_MESSAGE, spawnNats, type SpawnedNats } from "../scripts/launcher/nats.js";
import { loadBenchEnv } from "./env.js";
import { summarize } from "./stats.js";

const root = fileURLToPath(new URL("..", import.meta.url));
/** Linux's clock ticks per second for /proc/<pid>/stat (USER_HZ). */
const TICKS_PER_SECOND = 100;

const count = z.coerce.number().int().positive();
export const BurstBenchArgs = z.object({
  seconds: z.coerce.number().positive().default(8),
  warmup: z.coerce.number().positive().default(2),
  rate: count.default(1000),
  lanes: count.default(50),
  keys: count.default(1000),
  /** The metering build to run (its main.ts), relative to the repository root or absolute. */
  main: z.string().default("services/metering/src/main.ts"),
});
export type BurstBenchArgs = z.infer<typeof BurstBenchArgs>;

const args = BurstBenchArgs.parse(
  parseArgs({ options: Object.fromEntries(Object.keys(BurstBenchArgs.shape).map((k) => [k, { type: "string" as const }])) }).values,
);
const env = loadBenchEnv();

/**
 * NATS_URL (a bus without authorization), else a private nats-server with authorization on,
 * as npm start runs it: metering on its own credential, the load generator on the gateway's
 * (what calls metering.v1.consume in production).
 */
async function bus(): Promise<{ url: string; meteringSeed?: string; stop(): Promise<void>; connectOptions: Parameters<typeof connect>[0]; operatorOptions: Parameters<typeof connect>[0] }> {
  if (env.NATS_URL) return { url: env.NATS_URL, connectOptions: { servers: env.NATS_URL }, operatorOptions: { servers: env.NATS_URL }, stop: async () => {} };
  const bin = findNatsServer();
  if (!bin) throw new Error(NO_NATS_MESSAGE);
  const dir = await mkdtemp(path.join(os.tmpdir(), "board-burst-bench-"));
  const nats: SpawnedNats = await spawnNats(bin, dir);
  return {
    url: nats.url,
    meteringSeed: nats.seeds.metering,
    connectOptions: { servers: nats.url, authenticator: nkeyAuthenticator(new TextEncoder().encode(nats.seeds.gateway)), inboxPrefix: inboxPrefixOf("gateway") },
    // The operator may ping every service: how the bench waits for each replica.
    operatorOptions: { servers: nats.url, authenticator: nkeyAuthenticator(new TextEncoder().encode(nats.seeds.operator)), inboxPrefix: inboxPrefixOf("operator") },
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

const infra = await bus();
const nc = await connect(infra.connectOptions);
const operator = await connect(infra.operatorOptions);
const db = await freshDatabase(env.DATABASE_URL);
const children: ChildProcess[] = [];

function cpuMs(child: ChildProcess): number {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

async function startReplica(i: number): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve(root, args.main)], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      PATH: env.PATH,
      NATS_URL: infra.url,
      ...(infra.meteringSeed ? { NATS_NKEY_SEED: infra.meteringSeed } : {}),
      DATABASE_URL: db.url,
      HEALTH_PORT: "0",
      LOG_LEVEL: "warn",
      INSTANCE_ID: `burst-bench-${i}`,
      BURST_CAPACITY: "100000",
      BURST_PER_SECOND: "100000",
    },
  });
  children.push(child);
  const deadline = Date.now() + 60_000;
  // Serving once its own ping answers (the queue group picks any replica: ask until this one does).
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`replica ${i} did not start`);
    const pong = await request(operator, pingEndpoint("metering"), {}, { timeoutMs: 500 }).catch(() => null);
    if (pong?.instance === `burst-bench-${i}`) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One client address floods: how many of 3 x the documented anonymous burst are granted (the clock runs: refill is allowed). */
async function burstHolds(tag: string): Promise<{ granted: number; of: number; documented: number }> {
  const of = DEFAULT_BURST.anonymous.capacity * 3;
  const replies = await Promise.all(Array.from({ length: of }, () => request(nc, meteringConsume, { principal: `ip:198.51.100.${tag}`, kind: "anonymous" })));
  return { granted: replies.filter((r) => r.granted).length, of, documented: DEFAULT_BURST.anonymous.capacity };
}

interface Row {
  replicas: number;
  mode: string;
  keys: number;
  checks_per_second: number;
  failed: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  metering_cpu_us_per_check: number;
}

async function measure(mode: "paced" | "closed", keys: number): Promise<Row> {
  let sent = 0;
  let failed = 0;
  let samples: number[] = [];
  const check = async () => {
    const principal = `license:bench-${sent++ % keys}`;
    const t0 = performance.now();
    try {
      await request(nc, meteringConsume, { principal, kind: "licensed" }, { timeoutMs: 5000 });
      samples.push(performance.now() - t0);
    } catch {
      failed++;
    }
  };
  const run = async (ms: number) => {
    const end = performance.now() + ms;
    if (mode === "closed") {
      await Promise.all(Array.from({ length: args.lanes }, async () => { while (performance.now() < end) await check(); }));
      return;
    }
    const inFlight = new Set<Promise<void>>();
    const started = performance.now();
    let issued = 0;
    while (performance.now() < end) {
      for (const due = Math.floor(((performance.now() - started) / 1000) * args.rate); issued < due; issued++) {
        const p = check().finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    await Promise.all(inFlight);
  };
  await run(args.warmup * 1000);
  samples = [];
  failed = 0;
  const cpu0 = children.map(cpuMs);
  const t0 = performance.now();
  await run(args.seconds * 1000);
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = children.reduce((sum, c, i) => sum + cpuMs(c) - cpu0[i]!, 0);
  const s = summarize(Float64Array.from(samples));
  const ms = (v: number) => +v.toFixed(3);
  return {
    replicas: children.length,
    mode: mode === "closed" ? `closed, ${args.lanes} lanes` : `paced ${args.rate}/s`,
    keys,
    checks_per_second: Math.round(s.samples / elapsed),
    failed,
    p50_ms: ms(s.p50Ms),
    p90_ms: ms(s.p90Ms),
    p99_ms: ms(s.p99Ms),
    metering_cpu_us_per_check: +((cpu * 1000) / s.samples).toFixed(1),
  };
}

const rows: Row[] = [];
let exit = 0;
try {
  await startReplica(0);
  for (const replicas of [1, 3]) {
    while (children.length < replicas) await startReplica(children.length);
    // Replicas learn of each other at once (a joining replica asks); one heartbeat more for good measure.
    await new Promise((r) => setTimeout(r, 1500));
    const holds = await burstHolds(String(replicas));
    console.log(JSON.stringify({ replicas, anonymous_burst: holds }));
    if (holds.granted > holds.documented + DEFAULT_BURST.anonymous.per_second) exit = 1;
    for (const mode of ["paced", "closed"] as const) {
      for (const keys of [1, args.keys]) {
        const row = await measure(mode, keys);
        console.log(JSON.stringify(row));
        rows.push(row);
        if (row.failed > 0) exit = 1;
      }
    }
  }
  console.table(rows);
} finally {
  for (const c of children) c.kill("SIGTERM");
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode === null ? c.once("exit", r) : r(null)))));
  await nc.close();
  await operator.close();
  await db.drop();
  await infra.stop();
}
process.exit(exit);
