// npm run bench:curve: how a read's cost grows with the lanes asking at once. Runs `npm run
// bench` once per point (each its own stack, so one point's leftovers never weigh on the next):
// x402 paid reads (the stack, automining chain) at 1, 4, 16, 64 and 256 lanes, and free reads
// beside their ceiling at 50 and 500 connections. Writes bench/results/curve.json and prints
// one table; bench/README.md ("The cost curve") keeps the figures of a run.

import { spawnSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { machine } from "./report.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PAID_LANES = [1, 4, 16, 64, 256] as const;
const FREE_CONNECTIONS = [50, 500] as const;
const duration = process.argv.includes("--duration") ? process.argv[process.argv.indexOf("--duration") + 1]! : "8";

interface Row {
  id: string;
  concurrency: number;
  requestsPerSecond: number;
  latency: { p50Ms: number; p99Ms: number };
  ratioToCeiling: number | null;
  failures: number;
  server?: { processCpuMsPerRequestByService?: Record<string, number> };
}

interface Point {
  kind: "paid" | "free" | "ceiling";
  lanes: number;
  reqPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ratioToCeiling: number | null;
  cpuMsPerRead: Record<string, number>;
  failures: number;
}

/** One `npm run bench` of `rows` with `extra` arguments; its rows. */
async function run(rows: string, extra: string[], name: string): Promise<Row[]> {
  const out = join(tmpdir(), `bench-curve-${process.pid}-${name}.json`);
  const args = ["--import", "tsx", "bench/run.ts", "--rows", rows, "--duration", duration, "--history", "off", "--out", out, ...extra];
  console.log(`[curve] ${name}: node ${args.slice(2).join(" ")}`);
  const child = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  if (child.status !== 0) throw new Error(`${name}: the bench exited ${child.status}`);
  return (JSON.parse(await readFile(out, "utf8")) as { rows: Row[] }).rows;
}

const pointOf = (kind: Point["kind"], r: Row): Point => ({
  kind,
  lanes: r.concurrency,
  reqPerSecond: Math.round(r.requestsPerSecond),
  p50Ms: Math.round(r.latency.p50Ms * 100) / 100,
  p99Ms: Math.round(r.latency.p99Ms * 100) / 100,
  ratioToCeiling: r.ratioToCeiling,
  cpuMsPerRead: r.server?.processCpuMsPerRequestByService ?? {},
  failures: r.failures,
});

const started = new Date();
const points: Point[] = [];
for (const lanes of PAID_LANES) {
  // Enough payers that no payer's cap on unsettled reads is what a point measures.
  const payers = String(Math.max(8, lanes));
  const [row] = await run("paid-native", ["--paid-concurrency", String(lanes), "--paid-payers", payers, "--cpu-by-service", "off"], `paid-${lanes}`);
  points.push(pointOf("paid", row!));
}
for (const connections of FREE_CONNECTIONS) {
  const rows = await run("ceiling,free", ["--free-concurrency", String(connections), "--cpu-by-service", "off"], `free-${connections}`);
  for (const r of rows) points.push(pointOf(r.id === "free" ? "free" : "ceiling", r));
}

const result = { startedAt: started.toISOString(), durationSeconds: Number(duration), machine: { ...machine(), loadAverageAfter: undefined }, points };
await mkdir(join(ROOT, "bench/results"), { recursive: true });
await writeFile(join(ROOT, "bench/results/curve.json"), `${JSON.stringify(result, null, 2)}\n`);

console.log("\nkind     lanes  req/s   p50 ms   p99 ms  x ceiling  cpu ms/read by service");
for (const p of points) {
  const cpu = Object.entries(p.cpuMsPerRead)
    .filter(([, ms]) => ms >= 0.005)
    .map(([s, ms]) => `${s} ${ms.toFixed(3)}`)
    .join(", ");
  console.log(
    `${p.kind.padEnd(7)} ${String(p.lanes).padStart(6)} ${String(p.reqPerSecond).padStart(6)} ${p.p50Ms.toFixed(2).padStart(8)} ${p.p99Ms.toFixed(2).padStart(8)}  ${p.ratioToCeiling === null ? "        -" : p.ratioToCeiling.toFixed(3).padStart(9)}  ${cpu}`,
  );
}
console.log("\nresults: bench/results/curve.json");
