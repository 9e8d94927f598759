import diagnostics from "node:diagnostics_channel";
import { mkdir, writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import path from "node:path";
import type { PaymentRequired } from "@x402/core/types";
import { createPublicClient, http, parseAbiItem, type Hash } from "viem";
import { CADENCES, type BenchArgs, type Cadence, type ChainEngine, type RowId } from "./args.js";
import type { CeilingServer } from "./ceiling.js";
import type { ChainThread, ThreadChain } from "./chain.js";
import { failureCount, LoadWorker, okCount, type LoadResult } from "./loadgen.js";
import { cpuByService, type CpuProfile } from "./cpu-by-service.js";
import { Payers } from "./payments.js";
import { shapeOf, type RowResult, type ServerLoad, type SettlementFigures } from "./report.js";
import { summarize } from "./stats.js";

export const PAID_PATH = "/api/board/regime";
/** Each payer's USDC (base units): far more than any run spends. */
const PAYER_FUNDS = 10n ** 12n;
/** A paid warm-up ends when its payments are spent; this only bounds a stuck one. */
const PAID_WARMUP_CAP_MS = 60_000;
/** Payments must stay valid this long past the chain's clock. */
const CLOCK_MARGIN_SECONDS = 120;
/** How long a paid row waits for transfers of reads already answered to be mined (a server may answer before the block). */
const SETTLE_WAIT_MS = 30_000;
const SETTLE_POLL_MS = 50;

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
  async timed(
    id: string,
    label: string,
    origin: string,
    path: string,
    opts: { headers?: Record<string, string>; requireHeader?: string; cpu?: () => Record<string, number> } = {},
  ): Promise<RowResult> {
    const c = this.args.freeConcurrency;
    const { cpu, ...rest } = opts;
    const spec = { origin, path, concurrency: c, ...rest };
    const warm = await this.loader.run({ ...spec, durationMs: this.args.warmup * 1000 });
    const { result: r, server } = await this.observed(id, () => this.loader.run({ ...spec, durationMs: this.args.duration * 1000 }), cpu);
    return { ...rowOf(id, label, path, c, warm, r), server };
  }

  /**
   * A ceiling row: the same timed run (warm-up and duration as any row) against each shape of
   * the bare server in turn, one process then the cluster, under the same load generator; the
   * row is the faster one, labelled with its shape, and keeps every shape's figures. A shape
   * that failed fails the bench even when the other one won.
   */
  async ceiling(id: string, label: string, servers: readonly CeilingServer[], path: string, opts: { requireHeader?: string } = {}): Promise<RowResult> {
    const runs: { server: CeilingServer; row: RowResult }[] = [];
    for (const server of servers) {
      const row = await this.timed(id, `${label}, ${shapeOf(server.workers)}`, server.base, path, { ...opts, cpu: () => server.cpuMs() });
      log(`  ${shapeOf(server.workers)}: ${row.requestsPerSecond.toFixed(0)} req/s, p50 ${row.latency.p50Ms.toFixed(2)} ms, p99 ${row.latency.p99Ms.toFixed(2)} ms`);
      runs.push({ server, row });
    }
    const best = runs.reduce((a, b) => (b.row.requestsPerSecond > a.row.requestsPerSecond ? b : a));
    for (const { row } of runs) {
      if (row !== best.row && (row.failures > 0 || row.warmup.failures > 0)) {
        this.problems.push(`${row.label} ${path}: ${row.failures} failed of ${row.sent} (warm-up ${row.warmup.failures} of ${row.warmup.sent}); statuses ${JSON.stringify(row.statuses)}, errors ${JSON.stringify(row.errors)}`);
      }
    }
    return {
      ...best.row,
      workers: best.server.workers,
      variants: runs.map(({ server, row }) => ({
        workers: server.workers,
        requestsPerSecond: row.requestsPerSecond,
        p50Ms: row.latency.p50Ms,
        p99Ms: row.latency.p99Ms,
        failures: row.failures,
        cpuMsPerRequest: row.server?.processCpuMsPerRequestByService?.ceiling ?? null,
      })),
    };
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
   * duration ends it); afterwards the payTo must have grown by exactly price x 200s. A server
   * may answer a read before its transfer is mined (its block comes later): the warm-up's
   * transfers are awaited before the run's first block is taken, and the run's before its
   * settlement and balance are read.
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
    // On an automining chain each settlement moves its clock a second on: stay clear of the
    // payments' validBefore. (An interval chain's clock follows the wall clock.)
    const room = Math.floor(offer.maxTimeoutSeconds - (await chain.lead()) - CLOCK_MARGIN_SECONDS);
    if (room < 4 * c) throw new Error(`the chain's clock is ${Math.round(await chain.lead())} s ahead: no room left for payments`);
    const n = Math.min(wanted, room);
    const signStart = performance.now();
    const values = await payers.sign(required, n);
    const signing = { payments: n, seconds: (performance.now() - signStart) / 1000 };
    // An explicit --paid-requests runs to the last payment; otherwise the duration ends the run.
    const durationMs = this.args.paidRequests ? 30 * 60_000 : this.args.duration * 1000;
    await settledBalance(balance, before + price * BigInt(warm.statuses["200"] ?? 0));
    const fromBlock = (await chain.rpc.getBlockNumber()) + 1n;
    const callsBefore = await chain.chain.requests();
    const { result: r, server } = await this.observed(id, () => this.loader.run({ ...spec, values, durationMs }));
    const served = BigInt((warm.statuses["200"] ?? 0) + (r.statuses["200"] ?? 0));
    const settled = await settledBalance(balance, before + price * served);
    const callsAfter = await chain.chain.requests();
    // The bench's own balance reads while it waited (one eth_call each) are not the server's.
    const settlement = await settlementOf(chain, fromBlock, callsBefore, callsAfter, okCount(r), { eth_call: settled.reads });
    const after = settled.value;
    const row = { ...rowOf(id, label, PAID_PATH, c, warm, r), server };
    row.signing = signing;
    row.chainClockAheadSeconds = Math.round(await chain.lead());
    row.chain = { cadence: chain.cadence, blockIntervalMs: CADENCES[chain.cadence], payers: chain.payers.addresses.length, engine: chain.engine };
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
  private async observed(id: string, run: () => Promise<LoadResult>, serviceCpu = this.serviceCpu): Promise<{ result: LoadResult; server: ServerLoad }> {
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
    const servicesBefore = serviceCpu?.() ?? null;
    const result = await run().finally(() => diagnostics.unsubscribe("undici:request:create", countCall));
    const used = process.cpuUsage(cpu);
    const servicesAfter = serviceCpu?.() ?? null;
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

/**
 * Reads the payTo's balance until it reaches `expected` or SETTLE_WAIT_MS pass (then the
 * balance check fails with what it was): the last value and how many reads it took.
 */
async function settledBalance(balance: () => Promise<bigint>, expected: bigint): Promise<{ value: bigint; reads: number }> {
  const deadline = performance.now() + SETTLE_WAIT_MS;
  for (let reads = 1; ; reads++) {
    const value = await balance();
    if (value >= expected || performance.now() > deadline) return { value, reads };
    await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
  }
}

function emptyResult(): LoadResult {
  return { samplesMs: new Float64Array(0), elapsedMs: 0, sent: 0, statuses: {}, errors: {}, missingHeader: 0, bodyBytes: 0, failureSamples: [] };
}

/** A fresh local chain with funded payers, and how far its clock runs ahead of the wall clock. */
export interface RowChain {
  /** How it mines: automine (instant) or a block every 100 ms or 2 s. */
  cadence: Cadence;
  /** The node it runs on (args.ts CHAIN_ENGINES). */
  engine: ChainEngine;
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
 * On the 100 ms and 2 s cadences the node mines a block every interval instead (blocks may
 * share a timestamp, so its clock follows the wall clock); the payers are funded while it
 * still automines. On anvil (the 2 s rows unless --chain-2s edr) the blocks are 2 s apart in
 * time as well.
 */
export async function rowChain(thread: ChainThread, cadence: Cadence, payerCount: number, engine: ChainEngine = "edr"): Promise<RowChain> {
  const payers = Payers.create(payerCount);
  const chain = await thread.start(2, { engine, blockIntervalMs: CADENCES[cadence], mints: payers.addresses.map((to) => ({ to, amount: PAYER_FUNDS })) });
  try {
    const rpc = createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) });
    const lead = async () => Number((await rpc.getBlock()).timestamp) - Date.now() / 1000;
    return { cadence, engine, chain, payers, lead, rpc };
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
 * carried; chain calls are the JSON-RPC requests the node served during the run and until its
 * last transfer was mined (but for the bench's own, `ours`). The run's blocks go from the
 * first mined after it began (the warm-up's transfers were all mined before) to the latest
 * once its own were all mined (or the wait gave up); on an interval chain the empty blocks
 * count too.
 */
async function settlementOf(row: RowChain, fromBlock: bigint, before: Record<string, number>, after: Record<string, number>, answered: number, ours: Record<string, number>): Promise<SettlementFigures> {
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
    const d = n - (before[method] ?? 0) - (ours[method] ?? 0);
    if (d > 0) {
      chainCallsByMethod[method] = d;
      calls += d;
    }
  }
  return {
    blocks: toBlock >= fromBlock ? Number(toBlock - fromBlock + 1n) : 0,
    transactions: perTx.size,
    transfers: logs.length,
    gasPerPayment: logs.length ? Number(gas / BigInt(logs.length)) : 0,
    batchSizes,
    meanBatchSize: perTx.size ? logs.length / perTx.size : 0,
    chainCallsPerRead: calls / Math.max(1, answered),
    chainCallsByMethod,
  };
}
