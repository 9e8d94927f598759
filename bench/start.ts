// `npm run bench:start`: what `npm start` costs a newcomer, measured. The launcher runs as on
// a fresh machine (no DATABASE_URL, no NATS_URL: its own PostgreSQL and nats-server, and the
// development chains) STARTS times, alternating a new DATA_DIR (cold: initdb, migrations) and
// the same one again (warm). For each start: the time from spawning it to the first 200 of
// /api/board/free, and the memory of every process of the stack (the launcher and all its
// descendants, the database server's included), sampled every 250 ms: the peak over the first
// minute and the figure a minute after the start (at rest). Memory is the sum of PSS (shared
// pages counted once across processes) and, beside it, of RSS. A benchmark, not a test.
//
//   npm run bench:start [-- --starts 10 --rest-seconds 60]

import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadBenchEnv } from "./env.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const STARTS = arg("starts", 10);
const REST_SECONDS = arg("rest-seconds", 60);

interface Sample {
  pssMb: number;
  rssMb: number;
  processes: number;
}

/** The pid and all its descendants (Linux /proc). */
function tree(pid: number): number[] {
  const parent = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent.set(ppid, [...(parent.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(parent.get(out[i]!) ?? []));
  return out;
}

function sample(pid: number): Sample {
  let pss = 0;
  let rss = 0;
  let processes = 0;
  for (const p of tree(pid)) {
    try {
      const rollup = fs.readFileSync(`/proc/${p}/smaps_rollup`, "utf8");
      pss += Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      rss += Number(/^Rss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
      processes++;
    } catch {
      // Gone, or a kernel thread.
    }
  }
  return { pssMb: Math.round(pss / 1024), rssMb: Math.round(rss / 1024), processes };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

interface StartFigures {
  kind: "cold" | "warm";
  firstFreeReadMs: number;
  peak: Sample;
  atRest: Sample;
}

async function once(dataDir: string, kind: "cold" | "warm"): Promise<StartFigures> {
  const port = await freePort();
  // A newcomer's environment: nothing configured (no DATABASE_URL, no NATS_URL), nats-server on PATH.
  const env = { PATH: loadBenchEnv().PATH, PORT: String(port), HEALTH_PORT_BASE: "0", DATA_DIR: dataDir, LOG_LEVEL: "warn" };
  const t0 = Date.now();
  const child = spawn(process.execPath, ["scripts/start.mjs"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  let peak: Sample = { pssMb: 0, rssMb: 0, processes: 0 };
  const sampler = setInterval(() => {
    const s = sample(child.pid!);
    if (s.pssMb > peak.pssMb) peak = s;
  }, 250);
  let firstFreeReadMs = 0;
  try {
    while (!firstFreeReadMs) {
      if (child.exitCode !== null) throw new Error(`the launcher exited (${child.exitCode}):\n${out}`);
      if (Date.now() - t0 > 180_000) throw new Error(`no free read within 180 s:\n${out}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/board/free`).catch(() => null);
      if (res?.status === 200) firstFreeReadMs = Date.now() - t0;
      await res?.arrayBuffer();
      if (!firstFreeReadMs) await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, Math.max(0, REST_SECONDS * 1000 - (Date.now() - t0))));
    return { kind, firstFreeReadMs, peak, atRest: sample(child.pid!) };
  } finally {
    clearInterval(sampler);
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGINT");
    await exited;
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main() {
  const results: StartFigures[] = [];
  const made: string[] = [];
  let dir = "";
  for (let i = 0; i < STARTS; i++) {
    const kind = i % 2 === 0 ? "cold" : "warm";
    if (kind === "cold") made.push((dir = fs.mkdtempSync(path.join(os.tmpdir(), "board-bench-start-"))));
    const r = await once(dir, kind);
    results.push(r);
    process.stdout.write(
      `start ${i + 1}/${STARTS} ${kind}: first free read ${(r.firstFreeReadMs / 1000).toFixed(1)} s; memory peak ${r.peak.pssMb} MB PSS (${r.peak.rssMb} RSS), ` +
        `at ${REST_SECONDS} s ${r.atRest.pssMb} MB PSS (${r.atRest.rssMb} RSS), ${r.atRest.processes} processes\n`,
    );
  }
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
  const of = (kind: string, f: (r: StartFigures) => number) => median(results.filter((r) => kind === "all" || r.kind === kind).map(f));
  const summary = {
    machine: { node: process.version, cpus: os.cpus().length, model: os.cpus()[0]?.model, loadavg: os.loadavg() },
    starts: STARTS,
    rest_seconds: REST_SECONDS,
    median: {
      cold_first_free_read_s: of("cold", (r) => r.firstFreeReadMs) / 1000,
      warm_first_free_read_s: of("warm", (r) => r.firstFreeReadMs) / 1000,
      peak_pss_mb: of("all", (r) => r.peak.pssMb),
      peak_rss_mb: of("all", (r) => r.peak.rssMb),
      at_rest_pss_mb: of("all", (r) => r.atRest.pssMb),
      at_rest_rss_mb: of("all", (r) => r.atRest.rssMb),
    },
    runs: results,
  };
  process.stdout.write(`${JSON.stringify(summary.median, null, 2)}\n`);
  const out = path.join(root, "bench", "results", `start-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  fs.writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
  process.stdout.write(`written to ${path.relative(root, out)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
