// `npm run bench:scale`: how the scanner's and the board's cost grows with the universe, at the
// real 565 names and at a synthetic 5,000 (the real stocks cloned: bench/scale-pass.ts). Each
// size runs --runs times, each run a fresh process (so its memory is that size's alone), sizes
// interleaved so the shared machine's load falls on both alike; a figure is the median of the
// runs with their min-max. Measured per run: the scoring pass (buildSnapshot on the simulator:
// wall, CPU, memory after), the snapshot's bytes (JSON, and gzipped as it crosses the bus), publish to live (the scanner's
// encode, the board's decode, buildPublication), full-board reads (readView "agent", identity
// and gzip). Then which bus message outgrows which limit first, and once per size the least old
// space the scoring pass completes in (--heap-floor). A table on stdout, bench/results/scale.json.
//
//   npm run bench:scale [-- --sizes 565,5000 --runs 3 --read-seconds 1 --heap-floor on --semi-space-mb 1 --out bench/results/scale.json]

import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SNAPSHOT_STREAM_CONFIG } from "@board/service-kit";
import { SNAPSHOT_MAX_BYTES } from "../services/scanner-ingest/src/publish.js";
import { machine } from "./report.js";
import type { PassFigures } from "./scale-pass.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const PASS = "bench/scale-pass.ts";
/** nats-server's default max_payload: deploy's nats.conf files set none. */
const NATS_MAX_PAYLOAD = 1024 * 1024;
/** A heap floor trial slower than this counts as not fitting: a scan every 5 minutes cannot spend minutes collecting garbage. */
const FLOOR_TRIAL_TIMEOUT_MS = 120_000;

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "565,5000" },
    runs: { type: "string", default: "3" },
    "read-seconds": { type: "string", default: "1" },
    "heap-floor": { type: "string", default: "on" },
    out: { type: "string", default: "bench/results/scale.json" },
    // 1 MB as the services run (the Dockerfile's CMD, scripts/start.ts); 16 is node's default.
    "semi-space-mb": { type: "string", default: "1" },
  },
});
const NODE_FLAGS = [`--max-semi-space-size=${Number(values["semi-space-mb"])}`, "--expose-gc"];
const SIZES = values.sizes.split(",").map(Number);
const RUNS = Number(values.runs);
if (SIZES.some((n) => !Number.isInteger(n) || n < 565) || SIZES.length < 2) throw new Error("--sizes: two or more universe sizes, each at least 565");
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error("--runs: a positive integer");

const log = (s: string) => process.stderr.write(`${s}\n`);

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/** bench/scale-pass.ts in a process of its own; its progress passed through unless `quiet`. */
function child(args: string[], opts: { flags?: string[]; quiet?: boolean; timeoutMs?: number } = {}): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...NODE_FLAGS, ...(opts.flags ?? []), "--import", "tsx", PASS, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (!opts.quiet) process.stderr.write(d);
    });
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          p.kill("SIGKILL");
        }, opts.timeoutMs)
      : null;
    p.once("error", reject);
    p.once("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, timedOut, stdout, stderr });
    });
  });
}

async function measureOnce(size: number): Promise<PassFigures> {
  const r = await child([String(size), "--read-seconds", values["read-seconds"]]);
  const line = r.stdout.trim().split("\n").at(-1);
  if (r.code !== 0 || !line) throw new Error(`scale-pass ${size}: exit ${r.code ?? r.signal}\n${r.stderr.slice(-2000)}`);
  return JSON.parse(line) as PassFigures;
}

interface HeapFloor {
  names: number;
  /** The least --max-old-space-size (MB) tried with which both start-up scans complete. */
  fitsMb: number;
  /** The largest tried with which they do not (out of memory, or slower than the trial timeout); null if the first tried fit. */
  failsMb: number | null;
  trials: { oldSpaceMb: number; fits: boolean; seconds: number; why?: string }[];
}

/**
 * The least old space in which the scanner's two start-up scans complete: doubling from 64 MB
 * until they do, then halving the gap to within an eighth. Shows whether a universe fits the
 * scanner's pod, which the RSS after a pass cannot (under no memory pressure V8 leaves garbage).
 */
async function heapFloor(size: number): Promise<HeapFloor> {
  const trials: HeapFloor["trials"] = [];
  const fits = async (mb: number) => {
    const t0 = Date.now();
    const r = await child([String(size), "--scans-only"], { flags: [`--max-old-space-size=${mb}`], quiet: true, timeoutMs: FLOOR_TRIAL_TIMEOUT_MS });
    const ok = r.code === 0 && !r.timedOut;
    const why = ok ? undefined : r.timedOut ? `over ${FLOOR_TRIAL_TIMEOUT_MS / 1000} s` : /heap out of memory/.test(r.stderr) ? "heap out of memory" : `exit ${r.code ?? r.signal}`;
    trials.push({ oldSpaceMb: mb, fits: ok, seconds: (Date.now() - t0) / 1000, ...(why && { why }) });
    log(`  heap floor, ${size} names: old space ${mb} MB ${ok ? "fits" : `does not (${why})`}`);
    return ok;
  };
  let failsMb: number | null = null;
  let fitsMb = 64;
  while (!(await fits(fitsMb))) {
    failsMb = fitsMb;
    fitsMb *= 2;
    if (fitsMb > 16_384) throw new Error(`heap floor, ${size} names: no fit up to 16 GB`);
  }
  while (failsMb !== null && fitsMb - failsMb > Math.max(16, fitsMb / 8)) {
    const mid = Math.round((fitsMb + failsMb) / 2 / 8) * 8;
    if (await fits(mid)) fitsMb = mid;
    else failsMb = mid;
  }
  return { names: size, fitsMb, failsMb, trials };
}

interface Spread {
  median: number;
  min: number;
  max: number;
}
const spread = (xs: number[]): Spread => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return { median: s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2, min: s[0]!, max: s[s.length - 1]! };
};

type Unit = "ms" | "us" | "MB" | "B";
const METRICS: { key: string; label: string; unit: Unit; of: (f: PassFigures) => number }[] = [
  { key: "scan.wallMs", label: "scoring pass (intraday buildSnapshot), wall", unit: "ms", of: (f) => f.scan.wallMs },
  { key: "scan.cpuMs", label: "scoring pass, CPU", unit: "ms", of: (f) => f.scan.cpuMs },
  { key: "scan.gcMs", label: "scoring pass, main-thread GC pauses", unit: "ms", of: (f) => f.scan.gcMs },
  { key: "firstScan.wallMs", label: "first scan of a fresh scanner (previous close), wall", unit: "ms", of: (f) => f.firstScan.wallMs },
  { key: "firstScan.cpuMs", label: "first scan, CPU", unit: "ms", of: (f) => f.firstScan.cpuMs },
  { key: "firstScan.gcMs", label: "first scan, main-thread GC pauses", unit: "ms", of: (f) => f.firstScan.gcMs },
  { key: "memoryBefore.rssMb", label: "RSS before the scans (imports, universe, simulator)", unit: "MB", of: (f) => f.memoryBefore.rssMb },
  { key: "memoryAfterScan.rssMb", label: "RSS after the scoring pass", unit: "MB", of: (f) => f.memoryAfterScan.rssMb },
  { key: "memoryAfterScan.heapUsedMb", label: "heap used after the scoring pass", unit: "MB", of: (f) => f.memoryAfterScan.heapUsedMb },
  { key: "memoryAfterScanGc.heapUsedMb", label: "heap used after a collection (both scans' snapshots and the simulator held)", unit: "MB", of: (f) => f.memoryAfterScanGc.heapUsedMb },
  { key: "snapshot.jsonBytes", label: "snapshot JSON", unit: "B", of: (f) => f.snapshot.jsonBytes },
  { key: "snapshot.gzipBytes", label: "snapshot gzip (the message's data on the bus)", unit: "B", of: (f) => f.snapshot.gzipBytes },
  { key: "publish.encode.cpuMs", label: "publish: scanner encode (Snapshot.parse, stringify, gzip, sha256), CPU", unit: "ms", of: (f) => f.publish.encode.cpuMs },
  { key: "publish.decode.cpuMs", label: "publish: board decode (gunzip, JSON.parse, Snapshot.parse, sha256), CPU", unit: "ms", of: (f) => f.publish.decode.cpuMs },
  { key: "publish.build.cpuMs", label: "publish: buildPublication (median of 3 after the first), CPU", unit: "ms", of: (f) => f.publish.build.cpuMs },
  { key: "publish.buildFirst.cpuMs", label: "buildPublication, first in the process, CPU", unit: "ms", of: (f) => f.publish.buildFirst.cpuMs },
  { key: "publish.toLive.wallMs", label: "publish to live (encode + decode + buildPublication), wall", unit: "ms", of: (f) => f.publish.toLive.wallMs },
  { key: "publish.toLive.cpuMs", label: "publish to live, CPU", unit: "ms", of: (f) => f.publish.toLive.cpuMs },
  { key: "board.identity.bodyBytes", label: "full board view (agent)", unit: "B", of: (f) => f.board.identity.bodyBytes },
  { key: "board.gzip.bodyBytes", label: "full board view, gzip", unit: "B", of: (f) => f.board.gzip.bodyBytes },
  { key: "board.identity.usPerRead", label: "full-board read (readView agent), identity, wall", unit: "us", of: (f) => f.board.identity.usPerRead },
  { key: "board.identity.cpuUsPerRead", label: "full-board read, identity, CPU", unit: "us", of: (f) => f.board.identity.cpuUsPerRead },
  { key: "board.gzip.usPerRead", label: "full-board read, gzip, wall", unit: "us", of: (f) => f.board.gzip.usPerRead },
  { key: "board.gzip.cpuUsPerRead", label: "full-board read, gzip, CPU", unit: "us", of: (f) => f.board.gzip.cpuUsPerRead },
];

const num = (n: number, digits = 0) => n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const fmt = (n: number, unit: Unit) => (unit === "B" ? num(n) : unit === "MB" ? num(n, 1) : num(n, n < 100 ? 1 : 0));
const cell = (s: Spread, unit: Unit) => (s.min === s.max ? fmt(s.median, unit) : `${fmt(s.median, unit)} (${fmt(s.min, unit)}-${fmt(s.max, unit)})`);

function table(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

interface BusFit {
  message: string;
  limit: string;
  limitBytes: number;
  /** Bytes at each size measured (deterministic: the simulator is seeded). */
  bytes: Record<string, number>;
  bytesPerName: number;
  /** Names at which the message reaches its limit, straight between the smallest and largest size measured. */
  overAtNames: number;
  /** True when that is beyond the largest size measured (an extrapolation). */
  extrapolated: boolean;
}

/** Each bus message against each limit it meets; the smallest overAtNames breaks first. */
function busFits(sizes: { names: number; runs: PassFigures[] }[]): BusFit[] {
  const first = sizes[0]!;
  const last = sizes[sizes.length - 1]!;
  const at = (s: (typeof sizes)[number], of: (f: PassFigures) => number) => spread(s.runs.map(of)).median;
  const fit = (message: string, limit: string, limitBytes: number, of: (f: PassFigures) => number): BusFit => {
    const perName = (at(last, of) - at(first, of)) / (last.names - first.names);
    const overAtNames = Math.ceil(first.names + (limitBytes - at(first, of)) / perName);
    return {
      message,
      limit,
      limitBytes,
      bytes: Object.fromEntries(sizes.map((s) => [String(s.names), at(s, of)])),
      bytesPerName: perName,
      overAtNames,
      extrapolated: overAtNames > last.names,
    };
  };
  const viewBytes = (view: string) => (f: PassFigures) => f.views.find((v) => v.view === view)?.messageBytes ?? 0;
  const payload = `NATS max payload (${num(NATS_MAX_PAYLOAD)} B)`;
  const fits: BusFit[] = [
    fit("snapshot message on board.snapshots.v1 (gzip)", `scanner's guard SNAPSHOT_MAX_BYTES (${num(SNAPSHOT_MAX_BYTES)} B)`, SNAPSHOT_MAX_BYTES, (f) => f.snapshot.gzipBytes),
    fit("snapshot message on board.snapshots.v1 (gzip + headers)", payload, NATS_MAX_PAYLOAD, (f) => f.snapshot.messageBytes),
    fit("snapshot message on board.snapshots.v1 (gzip + headers)", `BOARD stream max_msg_size (${num(SNAPSHOT_STREAM_CONFIG.max_msg_size ?? 0)} B)`, SNAPSHOT_STREAM_CONFIG.max_msg_size ?? 0, (f) => f.snapshot.messageBytes),
    fit("full board (agent), board.v1.read reply, identity", payload, NATS_MAX_PAYLOAD, (f) => f.board.identity.messageBytes),
    fit("full board (agent), board.v1.read reply, gzip", payload, NATS_MAX_PAYLOAD, (f) => f.board.gzip.messageBytes),
  ];
  // Any other view whose reply outgrows the payload at the largest size (live-setup: every name's setup).
  for (const v of last.runs[0]!.views) {
    if (v.view === "agent" || v.messageBytes <= NATS_MAX_PAYLOAD) continue;
    fits.push(fit(`${v.view} view, board.v1.read reply, identity`, payload, NATS_MAX_PAYLOAD, viewBytes(v.view)));
  }
  return fits.sort((a, b) => a.overAtNames - b.overAtNames);
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const host = machine();
  const runs = new Map<number, PassFigures[]>(SIZES.map((n) => [n, []]));
  for (let r = 1; r <= RUNS; r++) {
    for (const size of SIZES) {
      log(`run ${r}/${RUNS}, ${size} names ...`);
      runs.get(size)!.push(await measureOnce(size));
    }
  }
  const floors: HeapFloor[] = [];
  if (values["heap-floor"] === "on") for (const size of SIZES) floors.push(await heapFloor(size));
  host.loadAverageAfter = os.loadavg().map((l) => Math.round(l * 100) / 100);

  const sizes = SIZES.map((names) => ({ names, runs: runs.get(names)! }));
  const summary = sizes.map((s) => ({ names: s.names, ...Object.fromEntries(METRICS.map((m) => [m.key, spread(s.runs.map(m.of))])) }) as { names: number } & Record<string, Spread>);
  const fits = busFits(sizes);
  const report = {
    startedAt,
    machine: host,
    params: { sizes: SIZES, runs: RUNS, readSeconds: Number(values["read-seconds"]), nodeFlags: NODE_FLAGS, natsMaxPayload: NATS_MAX_PAYLOAD },
    summary,
    bus: fits,
    breaksFirst: fits[0],
    heapFloor: floors,
    sizes,
  };
  const out = path.resolve(root, values.out);
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);

  const load = (l: number[] | undefined) => (l ? l.join(" ") : "-");
  const lines = [
    "",
    `node ${host.node}, ${host.cpus} x ${host.cpuModel}; load average before ${load(host.loadAverageBefore)}, after ${load(host.loadAverageAfter)}; ${RUNS} runs per size, median (min-max)`,
    "",
    table(
      ["measure", "unit", ...SIZES.map((n) => `${num(n)} names`), `x (names x${num(SIZES[SIZES.length - 1]! / SIZES[0]!, 2)})`],
      METRICS.map((m) => [
        m.label,
        m.unit,
        ...summary.map((s) => cell(s[m.key]!, m.unit)),
        num(summary[summary.length - 1]![m.key]!.median / summary[0]![m.key]!.median, 2),
      ]),
    ),
    "",
    "bus messages against their limits (bytes at each size; where each reaches its limit, straight between the sizes measured), first to break first",
    table(
      ["message", "limit", ...SIZES.map((n) => `${num(n)} names`), "B/name", "over at names"],
      fits.map((f) => [f.message, f.limit, ...SIZES.map((n) => `${num(f.bytes[String(n)]!)}${f.bytes[String(n)]! > f.limitBytes ? " OVER" : ""}`), num(f.bytesPerName), `~${num(f.overAtNames)}${f.extrapolated ? " (extrapolated)" : ""}`]),
    ),
  ];
  if (floors.length) {
    lines.push(
      "",
      "heap floor: the least old space (--max-old-space-size) both start-up scans complete in",
      table(
        ["names", "fits in MB", "fails at MB", "trials"],
        floors.map((f) => [num(f.names), num(f.fitsMb), f.failsMb === null ? "-" : num(f.failsMb), f.trials.map((t) => `${t.oldSpaceMb}${t.fits ? "" : "x"}`).join(" ")]),
      ),
    );
  }
  const b = fits[0]!;
  lines.push("", `breaks first: ${b.message} reaches the ${b.limit} at about ${num(b.overAtNames)} names`, `results: ${path.relative(root, out)}`);
  console.log(lines.join("\n"));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
