import type { CheckTiming } from "./tiers.js";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import { dirname } from "node:path";
import type { BenchArgs } from "./args.js";
import type { RecoveryBench } from "./ecdsa.js";
import type { LatencySummary } from "./stats.js";

export interface Machine {
  node: string;
  cpus: number;
  cpuModel: string;
  platform: string;
  totalMemGiB: number;
  /** 1, 5, 15-minute load averages: other work on the machine skews every figure. */
  loadAverageBefore: number[];
  loadAverageAfter?: number[];
}

export const machine = (): Machine => ({
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? "unknown",
  platform: `${os.platform()} ${os.release()} ${os.arch()}`,
  totalMemGiB: Math.round(os.totalmem() / 2 ** 30),
  loadAverageBefore: os.loadavg().map((l) => Math.round(l * 100) / 100),
});

/** How busy the process under test was during a measured run. */
export interface ServerLoad {
  /** 0..1: the main thread's event loop, where every server under test runs. */
  mainLoopUtilization: number;
  processCpuMsPerRequest: number;
  /** Process CPU time over wall time (2 = both cores of this machine). */
  processCpuCores: number;
  /** JSON-RPC calls the servers made to the chain, per answered request. */
  chainCallsPerRequest: number;
  /** Main-thread CPU per answered request, by the service whose code ran (from a CPU profile; --stack inproc). */
  mainThreadCpuMsPerRequestByService?: Record<string, number>;
  /** CPU per answered request of each service's own process (from /proc; --stack processes). */
  processCpuMsPerRequestByService?: Record<string, number>;
}

export interface RowResult {
  id: string;
  label: string;
  path: string;
  concurrency: number;
  sent: number;
  ok: number;
  failures: number;
  statuses: Record<string, number>;
  errors: Record<string, number>;
  missingHeader: number;
  elapsedSeconds: number;
  requestsPerSecond: number;
  latency: LatencySummary;
  bytesPerResponse: number;
  ratioToCeiling: number | null;
  /** The ceiling row this row's ratio is taken against: the one serving the same kind of bytes. */
  ceilingRow?: string;
  /** Ceiling rows: the bare server's shape that won (1: one process; n: a node:cluster of n workers). */
  workers?: number;
  /** Ceiling rows: every shape measured, in the order they ran; the row's own figures are the fastest's. */
  variants?: CeilingVariant[];
  server?: ServerLoad;
  warmup: { sent: number; ok: number; failures: number };
  /** Paid rows: the payTo's USDC growth against price × 200s (warm-up included). */
  balance?: { price: string; expected: string; actual: string; ok: boolean };
  /** Paid rows: pre-signing, outside the timed run. */
  signing?: { payments: number; seconds: number };
  /** Paid rows: what the chain saw of the measured run (transactions, batch sizes, gas per payment, chain calls per read). */
  settlement?: SettlementFigures;
  /** Paid rows: how far the local chain's clock ran ahead of the wall clock (automine: a block per settlement). */
  chainClockAheadSeconds?: number;
  /** Paid rows: how the row's chain mined (automine is `instant`, blockIntervalMs 0) and how many payers paid. */
  chain?: { cadence: string; blockIntervalMs: number; payers: number; engine?: string };
  failureSamples: string[];
  /** Set when the row could not run at all. */
  error?: string;
}

/** How a ceiling row names the bare server's shape. */
export const shapeOf = (workers: number): string => (workers === 1 ? "1 process" : `cluster of ${workers}`);

/** One shape of the bare server, measured for a ceiling row. */
export interface CeilingVariant {
  workers: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
  /** CPU of all its processes (primary and workers) per answered request, from /proc. */
  cpuMsPerRequest: number | null;
}

export interface SettlementFigures {
  /** Blocks mined during the measured run (automine: one per transaction; an interval chain's empty ones included). */
  blocks: number;
  /** Settlement transactions mined during the measured run. */
  transactions: number;
  /** EIP-3009 transfers they executed. */
  transfers: number;
  /** Their gasUsed over the transfers. */
  gasPerPayment: number;
  /** How many transactions carried n transfers. */
  batchSizes: Record<string, number>;
  meanBatchSize: number;
  /** JSON-RPC requests the chain served per answered paid read (every client of the chain: the server under test only, during the run). */
  chainCallsPerRead: number;
  chainCallsByMethod: Record<string, number>;
}

export interface BenchReport {
  startedAt: string;
  machine: Machine;
  params: BenchArgs;
  infra: { nats: string; database: string } | null;
  rows: RowResult[];
  recovery: RecoveryBench[];
  /** What each tier's check adds to a read: sequential bus round trips of resolve and consume. */
  checks: CheckTiming[];
  problems: string[];
  ok: boolean;
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "-");

function table(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n");
}

export function render(report: BenchReport): string {
  const m = report.machine;
  const load = (l: number[] | undefined) => (l ? l.join(" ") : "-");
  const out = [`node ${m.node}, ${m.cpus} x ${m.cpuModel}, ${m.platform}; load average before ${load(m.loadAverageBefore)}, after ${load(m.loadAverageAfter)}`, ""];
  out.push(
    table(
      ["row", "conc", "requests", "fail", "req/s", "p50 ms", "p99 ms", "x ceiling", "loop", "cpu ms/req", "rpc/req"],
      report.rows.map((r) => [
        `${r.label} ${r.path}`,
        String(r.concurrency),
        String(r.sent),
        String(r.failures),
        fmt(r.requestsPerSecond, 0),
        fmt(r.latency.p50Ms, 2),
        fmt(r.latency.p99Ms, 2),
        r.ratioToCeiling === null ? "-" : r.ratioToCeiling.toFixed(r.ratioToCeiling < 0.1 ? 4 : 3),
        r.server ? `${Math.round(r.server.mainLoopUtilization * 100)}%` : "-",
        r.server ? fmt(r.server.processCpuMsPerRequest, r.server.processCpuMsPerRequest < 1 ? 3 : 1) : "-",
        r.server ? fmt(r.server.chainCallsPerRequest, 1) : "-",
      ]),
    ),
  );
  for (const r of report.rows) {
    if (r.variants) {
      const shapes = r.variants.map((v) => `${shapeOf(v.workers)} ${fmt(v.requestsPerSecond, 0)} req/s (p99 ${fmt(v.p99Ms, 2)} ms)`);
      out.push(`  ${r.label}: ${shapes.join(", ")}; the faster is the ceiling`);
    }
    if (r.balance) out.push(`  ${r.label}: payTo +${r.balance.actual} (expected ${r.balance.expected} = ${r.balance.price} x 200s) ${r.balance.ok ? "ok" : "MISMATCH"}`);
    if (r.signing) out.push(`  ${r.label}: ${r.signing.payments} payments pre-signed in ${fmt(r.signing.seconds, 1)} s`);
  }
  const settled = report.rows.filter((r) => r.settlement);
  if (settled.length) {
    // Each row against the reference that ran on a chain of the same cadence in this run.
    const isReference = (r: RowResult) => r.id === "reference" || r.id.startsWith("reference-");
    const referenceFor = (r: RowResult) => settled.find((x) => isReference(x) && x.chain?.cadence === r.chain?.cadence);
    const cadence = (r: RowResult) => (r.chain ? `${r.chain.blockIntervalMs ? `${r.chain.blockIntervalMs >= 1000 ? `${r.chain.blockIntervalMs / 1000} s` : `${r.chain.blockIntervalMs} ms`} blocks` : "automine"}, ${r.chain.payers} payers${r.chain.engine === "anvil" ? ", anvil" : ""}` : "-");
    out.push(
      "",
      "settlement, as the chain saw each measured paid run (AuthorizationUsed logs, receipts, JSON-RPC requests served)",
      table(
        ["row", "chain", "req/s x reference", "blocks", "transactions", "transfers", "mean batch", "batch sizes (size:count)", "gas / payment", "chain calls / read"],
        settled.map((r) => {
          const st = r.settlement!;
          const reference = referenceFor(r);
          return [
            `${r.label} (c=${r.concurrency})`,
            cadence(r),
            reference?.requestsPerSecond ? fmt(r.requestsPerSecond / reference.requestsPerSecond, 2) : "-",
            String(st.blocks),
            String(st.transactions),
            String(st.transfers),
            fmt(st.meanBatchSize, 1),
            Object.entries(st.batchSizes)
              .sort(([a], [b]) => Number(a) - Number(b))
              .map(([size, n]) => `${size}:${n}`)
              .join(" "),
            String(st.gasPerPayment),
            fmt(st.chainCallsPerRead, 2),
          ];
        }),
      ),
    );
  }
  const byService = (title: string, of: (r: RowResult) => Record<string, number> | undefined) => {
    const split = report.rows.filter((r) => of(r));
    if (!split.length) return;
    const owners = [...new Set(split.flatMap((r) => Object.keys(of(r)!)))].sort((a, b) => ownerRank(a) - ownerRank(b) || a.localeCompare(b));
    out.push(
      "",
      title,
      table(
        ["row", ...owners],
        split.map((r) => [
          `${r.label} ${r.path}`,
          ...owners.map((o) => {
            const v = of(r)![o];
            return v === undefined ? "-" : fmt(v, v < 1 ? 3 : 2);
          }),
        ]),
      ),
    );
  };
  byService("CPU ms per request by service (each service's own process, from /proc)", (r) => r.server?.processCpuMsPerRequestByService);
  byService("main-thread CPU ms per request by service (V8 profile; each sample charged to the service whose code is nearest the top of its stack)", (r) => r.server?.mainThreadCpuMsPerRequestByService);
  if (report.checks.length) {
    out.push("", table(["tier check, alone (sequential over the bus)", "calls", "p50 ms", "p99 ms", "mean ms"], report.checks.map((c) => [c.check, String(c.calls), fmt(c.latency.p50Ms, 3), fmt(c.latency.p99Ms, 3), fmt(c.latency.meanMs, 3)])));
  }
  if (report.recovery.length) {
    out.push("", table(["signature recovery and receipt signing (one core)", "ops/s", "us/op", "wrong"], report.recovery.map((b) => [b.name, fmt(b.opsPerSecond, 0), fmt(b.usPerOp, 1), String(b.wrong)])));
  }
  out.push("");
  if (report.problems.length) out.push(`FAILED: ${report.problems.length} problem(s)`, ...report.problems.map((p) => `  - ${p}`));
  else out.push("every row ran with 0 failures");
  return out.join("\n");
}

/** Services first in the order a read crosses them, then the shared kit, then node itself. */
const OWNER_ORDER = ["gateway", "identity", "metering", "payments", "board", "scanner-ingest", "service-kit", "node"];
const ownerRank = (o: string) => (OWNER_ORDER.includes(o) ? OWNER_ORDER.indexOf(o) : OWNER_ORDER.length);

export async function writeReport(path: string, report: BenchReport): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
}
