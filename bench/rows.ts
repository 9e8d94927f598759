import diagnostics from "node:diagnostics_channel";
import { mkdir, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import path from "node:path";
import type { PaymentRequired } from "@x402/core/types";
import { createPublicClient, http, parseAbiItem, type Hash } from "viem";
import type { BenchArgs, RowId } from "./args.js";
import type { ChainThread, ThreadChain } from "./chain.js";
import { failureCount, LoadWorker, okCount, type LoadResult } from "./loadgen.js";
import { cpuByService, type CpuProfile } from "./cpu-by-service.js";
import { Payers } from "./payments.js";
import type { RowResult, ServerLoad, SettlementFigures } from "./report.js";
import { summarize } from "./stats.js";

export const PAID_PATH = "/api/board/regime";
const PAYERS = 8;
/** Each payer's USDC (base units): far more than any run spends. */
const PAYER_FUNDS = 10n ** 12n;
/** A paid warm-up ends when its payments are spent; this only bounds a stuck one. */
const PAID_WARMUP_CAP_MS = 60_000;
/** Payments must stay valid this long past the chain's clock. */
const CLOCK_MARGIN_SECONDS = 120;

export const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

function rowOf(id: string, label: string, path: string, concurrency: number, warm: LoadResult, r: LoadResult): RowResult {
  const elapsedSeconds = r.elapsedMs / 1000;
  const ok = okCount(r);
  return {
    id,
    label,
    path,
    concurrency,
    sent: r.sent,
    ok,
    failures: failureCount(r),
    statuses: r.statuses,
    errors: r.errors,
    missingHeader: r.missingHeader,
    elapsedSeconds,
    // Only successful answers count: a fast refusal is not throughput.
    requestsPerSecond: ok / elapsedSeconds,
    latency: summarize(r.samplesMs),
    bytesPerResponse: r.samplesMs.length ? Math.round(r.bodyBytes / r.samplesMs.length) : 0,
    ratioToCeiling: null,
    warmup: { sent: warm.sent, ok: okCount(warm), failures: failureCount(warm) },
    failureSamples: [...warm.failureSamples, ...r.failureSamples].slice(0, 5),
  };
}

/** Runs the rows: load through the worker, checks, and the failures that make the bench fail. */
export class Bench {
  readonly rows: RowResult[] = [];
  readonly problems: string[] = [];
  private readonly loader = new LoadWorker();
  /** Cumulative CPU ms of each service process, when the services run as processes. */
  serviceCpu: (() => Record<string, number>) | null = null;

  constructor(private readonly args: BenchArgs) {}

  want(id: RowId): boolean {
    return this.args.rows.includes(id);
  }

  /** A row that failed to run still appears, with its error, and fails the bench. */
  async row(id: RowId, label: string, path: string, concurrency: number, measure: () => Promise<RowResult>): Promise<RowResult | null> {
    if (!this.want(id)) return null;
    log(`${label} ${path} (c=${concurrency}) ...`);
    try {
      const r = await measure();
      this.rows.push(r);
      if (r.failures > 0 || r.warmup.failures > 0) {
        this.problems.push(`${label} ${path}: ${r.failures} failed of ${r.sent} (warm-up ${r.warmup.failures} of ${r.warmup.sent}); statuses ${JSON.stringify(r.statuses)}, errors ${JSON.stringify(r.errors)}, 200s without the required header ${r.missingHeader}${r.failureSamples.map((f) => `\n      ${f}`).join("")}`);
      }
      if (r.balance && !r.balance.ok) this.problems.push(`${label} ${path}: payTo grew by ${r.balance.actual}, expected ${r.balance.expected}`);
      log(`  ${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.latency.p50Ms.toFixed(2)} ms, p99 ${r.latency.p99Ms.toFixed(2)} ms, ${r.failures} failures`);
      return r;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.problems.push(`${label} ${path}: did not run: ${message}`);
      this.rows.push({ ...rowOf(id, label, path, concurrency, emptyResult(), emptyResult()), error: message });
      log(`  did not run: ${message}`);
      return null;
    }
  }

  /**
   * Warm-up for `warmup` seconds, then `duration` seconds measured, on the same connections;
   * every request with `headers`, and a 200 without `requireHeader` counts as a failure.
   */
  async timed(id: string, label: string, origin: string, path: string, opts: { headers?: Record<string, string>; requireHeader?: string } = {}): Promise<RowResult> {
    const c = this.args.freeConcurrency;
    const spec = { origin, path, concurrency: c, ...opts };
    const warm = await this.loader.run({ ...spec, durationMs: this.args.warmup * 1000 });
    const { result: r, server } = await this.observed(id, () => this.loader.run({ ...spec, durationMs: this.args.duration * 1000 }));
    return { ...rowOf(id, label, path, c, warm, r), server };
  }

  /** A timed row of one fixed POST (the MCP row: a JSON-RPC message). */
  async timedPost(id: string, label: string, origin: string, path: string, body: string, headers: Record<string, string>): Promise<RowResult> {
    const c = this.args.freeConcurrency;
    const spec = { origin, path, concurrency: c, method: "POST" as const, body, headers };
    const warm = await this.loader.run({ ...spec, durationMs: this.args.warmup * 1000 });
    const { result: r, server } = await this.observed(id, () => this.loader.run({ ...spec, durationMs: this.args.duration * 1000 }));
    return { ...rowOf(id, label, path, c, warm, r), server };
  }

  /** A timed row whose request i carries values[i] in `header` (each used once; the row also ends when they run out). */
  async timedWith(id: string, label: string, origin: string, path: string, header: string, values: string[]): Promise<RowResult> {
    const c = this.args.freeConcurrency;
    const warmCount = Math.min(values.length >> 3, 4000);
    const warm = await this.loader.run({ origin, path, concurrency: c, durationMs: this.args.warmup * 1000, header, values: values.slice(0, warmCount) });
    const { result: r, server } = await this.observed(id, () =>
      this.loader.run({ origin, path, concurrency: c, durationMs: this.args.duration * 1000, header, values: values.slice(warm.sent) }),
    );
    return { ...rowOf(id, label, path, c, warm, r), server };
  }

  /**
   * A paid row: every request carries its own payment, signed before the run. The warm-up
   * spends `paidWarmup` payments and sizes the measured run (1.5 x its rate x duration, so the
   * duration ends it); afterwards the payTo must have grown by exactly price x 200s.
   */
  async paid(id: string, label: string, origin: string, required: PaymentRequired, chain: RowChain, balance: () => Promise<bigint>, concurrency = this.args.paidConcurrency): Promise<RowResult> {
    const payers = chain.payers;
    const c = concurrency;
    const offer = required.accepts[0];
    if (!offer) throw new Error(`${origin}${PAID_PATH} offers no way to pay`);
    const price = BigInt(offer.amount);
    const spec = { origin, path: PAID_PATH, concurrency: c, header: "payment-signature", requireHeader: "payment-response" };
    const before = await balance();
    const warm = await this.loader.run({ ...spec, values: await payers.sign(required, this.args.paidWarmup), durationMs: PAID_WARMUP_CAP_MS });
    const warmRate = okCount(warm) / (warm.elapsedMs / 1000);
    const wanted = this.args.paidRequests ?? Math.min(this.args.maxPaidRequests, Math.max(4 * c, Math.ceil(1.5 * warmRate * this.args.duration)));
    // Each payment moves the chain's clock a second on: stay clear of the payments' validBefore.
    const room = Math.floor(offer.maxTimeoutSeconds - (await chain.lead()) - CLOCK_MARGIN_SECONDS);
    if (room < 4 * c) throw new Error(`the chain's clock is ${Math.round(await chain.lead())} s ahead: no room left for payments`);
    const n = Math.min(wanted, room);
    const signStart = performance.now();
    const values = await payers.sign(required, n);
    const signing = { payments: n, seconds: (performance.now() - signStart) / 1000 };
    // An explicit --paid-requests runs to the last payment; otherwise the duration ends the run.
    const durationMs = this.args.paidRequests ? 30 * 60_000 : this.args.duration * 1000;
    const fromBlock = (await chain.rpc.getBlockNumber()) + 1n;
    const callsBefore = await chain.chain.requests();
    const { result: r, server } = await this.observed(id, () => this.loader.run({ ...spec, values, durationMs }));
    const callsAfter = await chain.chain.requests();
    const settlement = await settlementOf(chain, fromBlock, callsBefore, callsAfter, okCount(r));
    const after = await balance();
    const served = BigInt((warm.statuses["200"] ?? 0) + (r.statuses["200"] ?? 0));
    const row = { ...rowOf(id, label, PAID_PATH, c, warm, r), server };
    row.signing = signing;
    row.chainClockAheadSeconds = Math.round(await chain.lead());
    row.balance = { price: price.toString(), expected: (price * served).toString(), actual: (after - before).toString(), ok: after - before === price * served };
    row.settlement = settlement;
    return row;
  }

  /**
   * How busy this process was during a run: the main thread's event-loop utilization (every
   * server under test shares that one loop; the chain has its own thread) and the process's
   * CPU time per answered request (the load generator's and the chain's threads included), and
   * the JSON-RPC calls the servers made to the chain per answered request.
   */
  private async observed(id: string, run: () => Promise<LoadResult>): Promise<{ result: LoadResult; server: ServerLoad }> {
    // Services in this process: their CPU is split from a profile of its main thread.
    const attribute = this.args.cpuByService === "on" && this.args.stack === "inproc";
    const profiler = this.args.cpuProfile || attribute ? await startProfile() : null;
    // Every undici/fetch request of this thread is a JSON-RPC call to the chain (the load
    // generator's requests are made in its own thread, which has its own channels).
    let rpcCalls = 0;
    const countCall = () => void rpcCalls++;
    diagnostics.subscribe("undici:request:create", countCall);
    const elu = performance.eventLoopUtilization();
    const cpu = process.cpuUsage();
    const servicesBefore = this.serviceCpu?.() ?? null;
    const result = await run().finally(() => diagnostics.unsubscribe("undici:request:create", countCall));
    const used = process.cpuUsage(cpu);
    const servicesAfter = this.serviceCpu?.() ?? null;
    const utilization = performance.eventLoopUtilization(elu).utilization;
    const profile = profiler ? await profiler.stop(this.args.cpuProfile ? path.join(this.args.cpuProfile, `${id}.cpuprofile`) : null) : null;
    const answered = Math.max(1, result.samplesMs.length);
    const byService = profile && attribute ? cpuByService(profile) : null;
    return {
      result,
      server: {
        mainLoopUtilization: utilization,
        chainCallsPerRequest: rpcCalls / answered,
        processCpuMsPerRequest: (used.user + used.system) / 1000 / answered,
        processCpuCores: (used.user + used.system) / 1000 / result.elapsedMs,
        ...(byService ? { mainThreadCpuMsPerRequestByService: Object.fromEntries(Object.entries(byService).map(([k, ms]) => [k, ms / answered])) } : {}),
        ...(servicesBefore && servicesAfter
          ? { processCpuMsPerRequestByService: Object.fromEntries(Object.entries(servicesAfter).flatMap(([k, ms]) => (servicesBefore[k] === undefined ? [] : [[k, (ms - servicesBefore[k]) / answered]]))) }
          : {}),
      },
    };
  }

  close(): Promise<void> {
    return this.loader.close();
  }
}

/** The main thread's CPU profiler (where the servers run): --cpu-profile writes it, --cpu-by-service reads it. */
async function startProfile(): Promise<{ stop(file: string | null): Promise<CpuProfile> }> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  return {
    async stop(file) {
      const { profile } = await session.post("Profiler.stop");
      session.disconnect();
      if (file) {
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, JSON.stringify(profile));
        log(`  CPU profile: ${file}`);
      }
      return profile as CpuProfile;
    },
  };
}

function emptyResult(): LoadResult {
  return { samplesMs: new Float64Array(0), elapsedMs: 0, sent: 0, statuses: {}, errors: {}, missingHeader: 0, bodyBytes: 0, failureSamples: [] };
}

/** A fresh local chain with funded payers, and how far its clock runs ahead of the wall clock. */
export interface RowChain {
  chain: ThreadChain;
  payers: Payers;
  /** Seconds the chain's latest block is ahead of now. */
  lead(): Promise<number>;
  rpc: ReturnType<typeof createPublicClient>;
}

/**
 * One fresh chain per paid row. EDR automines a block per settlement and gives each block a
 * timestamp one second after the last, so under load its clock runs ahead of the wall clock
 * by about a second per payment; a payment whose validBefore (wall clock + maxTimeoutSeconds)
 * the chain has passed cannot settle. A fresh chain starts each row at the wall clock.
 */
export async function rowChain(thread: ChainThread): Promise<RowChain> {
  const chain = await thread.start(2);
  try {
    const payers = await Payers.fund(chain, PAYERS, PAYER_FUNDS);
    const rpc = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
    const lead = async () => Number((await rpc.getBlock()).timestamp) - Date.now() / 1000;
    return { chain, payers, lead, rpc };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}


const authorizationUsed = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");

/**
 * What the chain itself saw of a measured paid run (so the stack and the reference are read
 * alike, by nothing of theirs): each EIP-3009 transfer is an AuthorizationUsed log; the logs
 * of one transaction are one batch; gas is the receipts' gasUsed over the payments they
 * carried; chain calls are the JSON-RPC requests the node served during the run.
 */
async function settlementOf(row: RowChain, fromBlock: bigint, before: Record<string, number>, after: Record<string, number>, answered: number): Promise<SettlementFigures> {
  const toBlock = await row.rpc.getBlockNumber();
  const logs = toBlock >= fromBlock ? await row.rpc.getLogs({ address: row.chain.usdc, event: authorizationUsed, fromBlock, toBlock }) : [];
  const perTx = new Map<Hash, number>();
  for (const log of logs) perTx.set(log.transactionHash, (perTx.get(log.transactionHash) ?? 0) + 1);
  let gas = 0n;
  const hashes = [...perTx.keys()];
  for (let i = 0; i < hashes.length; i += 32) {
    const receipts = await Promise.all(hashes.slice(i, i + 32).map((hash) => row.rpc.getTransactionReceipt({ hash })));
    for (const receipt of receipts) gas += receipt.gasUsed;
  }
  const batchSizes: Record<string, number> = {};
  for (const n of perTx.values()) batchSizes[n] = (batchSizes[n] ?? 0) + 1;
  const chainCallsByMethod: Record<string, number> = {};
  let calls = 0;
  for (const [method, n] of Object.entries(after)) {
    const d = n - (before[method] ?? 0);
    if (d > 0) {
      chainCallsByMethod[method] = d;
      calls += d;
    }
  }
  return {
    transactions: perTx.size,
    transfers: logs.length,
    gasPerPayment: logs.length ? Number(gas / BigInt(logs.length)) : 0,
    batchSizes,
    meanBatchSize: perTx.size ? logs.length / perTx.size : 0,
    chainCallsPerRead: calls / Math.max(1, answered),
    chainCallsByMethod,
  };
}
