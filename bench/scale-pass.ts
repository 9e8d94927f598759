// One universe size, measured in a process of its own (bench/scale.ts starts one per size and
// run, so the memory figures are this size's alone): the scanner's scoring pass on the
// simulator, the snapshot as published, the board's publication built from it, and full-board
// reads. Prints one JSON line on stdout (PassFigures; with --scans-only just the two start-up
// scans, for bench/scale.ts's heap floor search); progress goes to stderr.
//
//   node --max-semi-space-size=1 --expose-gc --import tsx bench/scale-pass.ts <names> [--read-seconds 1] [--scans-only]

import { createHash } from "node:crypto";
import { PerformanceObserver } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { BoardReadMeta, BUS_META_HEADER, Snapshot, Symbol, type ViewName } from "@board/proto";
import { decodeSnapshotMessage, encodeSnapshotMessage } from "@board/service-kit";
import { headers as natsHeaders, type MsgHdrs } from "nats";
import { buildPublication, type Publication } from "../services/board/src/publication.js";
import { readView, type ReadDeps } from "../services/board/src/read.js";
import { MarketSimulator } from "../services/scanner-ingest/src/market/simulator.js";
import { buildSnapshot } from "../services/scanner-ingest/src/snapshot.js";
import { loadUniverse, type Universe } from "../services/scanner-ingest/src/universe.js";

/** The scanner's start-up scans, as services/scanner-ingest/src/start.ts runs them: the previous close, then now (10:55 New York). */
const CLOSE_SCAN = { at: new Date("2026-11-19T21:30:00Z"), intraday: false, asofDaily: "2026-11-19" };
const SCAN = { at: new Date("2026-11-20T15:55:00Z"), intraday: true, asofDaily: "2026-11-20" };
/** A read a minute after the scan: the board is fresh, as most reads find it. */
const READ_AT = new Date(SCAN.at.getTime() + 60_000);

/**
 * The real universe with its stocks cloned until it holds `size` names. A clone keeps its
 * stock's name record fields (sector, books), so every book and sector ETF the scoring reads is
 * still there; the ETFs and the two crypto names are kept once. Symbols get a suffix (AAPL-1,
 * AAPL-2, ...): valid tickers, never a real one, and never -USD (a crypto pair's form).
 */
function scaledUniverse(size: number): Universe {
  const real = loadUniverse();
  if (size === real.entries.length) return real;
  if (size < real.entries.length) throw new Error(`a universe smaller than the real ${real.entries.length} names is not a scaling`);
  const stocks = real.entries.filter((e) => e.kind === "stock");
  const entries = [...real.entries];
  const taken = new Set(entries.map((e) => e.sym));
  for (let k = 1; entries.length < size; k++) {
    for (const e of stocks) {
      if (entries.length >= size) break;
      const sym = Symbol.parse(`${e.sym}-${k}`);
      if (taken.has(sym)) throw new Error(`scaled universe: ${sym} twice`);
      taken.add(sym);
      entries.push({ ...e, sym, name: `${e.name} (copy ${k})`, books: [...e.books] });
    }
  }
  return { entries, sectorEtfs: real.sectorEtfs };
}

export interface Timed {
  wallMs: number;
  cpuMs: number;
  /** Main-thread garbage collection pauses within the wall time (perf_hooks gc entries). */
  gcMs: number;
}
export interface Memory {
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
}

export interface PassFigures {
  names: number;
  stocks: number;
  /** The first scan of a fresh scanner (previous close): every name's simulated path is built from its origin. */
  firstScan: Timed;
  /** The scoring pass: the intraday scan that follows (what runs every 5 minutes), buildSnapshot alone. */
  scan: Timed;
  /** This process before the first scan (imports, universe, simulator made; after a collection). */
  memoryBefore: Memory;
  /** Right after the scoring pass. */
  memoryAfterScan: Memory;
  /** After a collection: what is held with both scans' snapshots and the simulator's paths. */
  memoryAfterScanGc: Memory;
  /** The process's highest RSS up to the end of the scoring pass (getrusage maxrss). */
  peakRssMb: number;
  /**
   * The snapshot's JSON, and the message that carries it on board.snapshots.v1 (its JSON
   * gzipped, encodeSnapshotMessage): the data the scanner's guard checks, its headers, both.
   */
  snapshot: { jsonBytes: number; gzipBytes: number; headerBytes: number; messageBytes: number };
  /**
   * Publish to live (no bus transit, no Postgres), wall and CPU ms: the scanner's encode
   * (publishSnapshot before it sends: Snapshot.parse, JSON.stringify, gzip, sha256), the board's
   * decode (its consumer on receipt: gunzip, JSON.parse, Snapshot.parse, sha256), buildPublication the
   * first time in this process (cold JIT, as after a restart) and again (median of 3, as every
   * later snapshot), and toLive = encode + decode + build.
   */
  publish: Record<"encode" | "decode" | "buildFirst" | "build" | "toLive", { wallMs: number; cpuMs: number }>;
  /** The full board view (agent) as a board.v1.read reply: body, Board-Meta header, the whole message; wall and CPU time per read. */
  board: Record<"identity" | "gzip", { bodyBytes: number; headerBytes: number; messageBytes: number; usPerRead: number; cpuUsPerRead: number; reads: number }>;
  /** Every view of the publication (parametrised ones without parameters), its identity reply in bytes, largest first. */
  views: { view: string; messageBytes: number }[];
}

const mb = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
const memory = (): Memory => {
  const m = process.memoryUsage();
  return { rssMb: mb(m.rss), heapUsedMb: mb(m.heapUsed), heapTotalMb: mb(m.heapTotal), externalMb: mb(m.external) };
};
const collect = () => (globalThis as { gc?: () => void }).gc?.();
const log = (s: string) => process.stderr.write(`  [${process.pid}] ${s}\n`);

const gcPauses: { start: number; duration: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push({ start: e.startTime, duration: e.duration });
}).observe({ entryTypes: ["gc"] });

async function timed<T>(f: () => Promise<T> | T): Promise<{ value: T } & Timed> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = await f();
  const t1 = performance.now();
  const c = process.cpuUsage(cpu);
  // gc entries are delivered after the work that caused them: let them in before summing.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const gcMs = gcPauses.filter((g) => g.start >= t0 && g.start < t1).reduce((sum, g) => sum + g.duration, 0);
  return { value, wallMs: t1 - t0, cpuMs: (c.user + c.system) / 1000, gcMs };
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Headers on the wire: the client sends (and counts against max_payload) the UTF-8 of their text form. */
const headerBytes = (h: MsgHdrs) => Buffer.byteLength(h.toString());

/** The Board-Meta header of a reply, as the service kit sets it (packages/service-kit/src/service.ts). */
function metaHeaderBytes(meta: unknown): number {
  const h = natsHeaders();
  h.set(BUS_META_HEADER, JSON.stringify(BoardReadMeta.parse(meta)));
  return headerBytes(h);
}

/** The headers a snapshot message carries: its encoding, its message id (the JSON's hash) and a trace parent. */
function snapshotHeaderBytes(encoded: MsgHdrs, hash: string): number {
  const h = natsHeaders();
  for (const k of encoded.keys()) h.set(k, encoded.get(k));
  h.set("Nats-Msg-Id", hash);
  h.set("traceparent", `00-${"a".repeat(32)}-${"b".repeat(16)}-01`);
  return headerBytes(h);
}

/** Reads for `seconds` (after a warm-up), as board.v1.read answers them; microseconds per read. */
function timeReads(deps: ReadDeps, encoding: "identity" | "gzip", seconds: number) {
  let bytes = 0;
  for (let i = 0; i < 50; i++) bytes += readView(deps, { view: "agent", encoding }).body.length;
  let reads = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 10; i++) bytes += readView(deps, { view: "agent", encoding }).body.length;
    reads += 10;
  }
  const us = ((performance.now() - t0) * 1000) / reads;
  const c = process.cpuUsage(cpu);
  if (bytes === 0) throw new Error("no bytes read");
  return { usPerRead: us, cpuUsPerRead: (c.user + c.system) / reads, reads };
}

function viewSizes(pub: Publication, deps: ReadDeps): { view: string; messageBytes: number }[] {
  const out: { view: string; messageBytes: number }[] = [];
  for (const view of [...pub.views.keys(), ...pub.lookups.keys()] as ViewName[]) {
    try {
      const r = readView(deps, { view });
      out.push({ view, messageBytes: r.body.length + metaHeaderBytes(r.meta) });
    } catch {
      // A lookup that needs its parameter: its answer is one entry, not the universe.
    }
  }
  return out.sort((a, b) => b.messageBytes - a.messageBytes);
}

async function measure(size: number, readSeconds: number): Promise<PassFigures> {
  const universe = scaledUniverse(size);
  const provider = new MarketSimulator(universe.entries);
  collect();
  const memoryBefore = memory();

  log(`${size} names: first scan (previous close) ...`);
  const first = await timed(() => buildSnapshot({ universe, provider, ...CLOSE_SCAN }));
  const delayed = first.value;
  log(`${size} names: scoring pass (intraday) ...`);
  const scan = await timed(() => buildSnapshot({ universe, provider, ...SCAN }));
  const memoryAfterScan = memory();
  const peakRssMb = mb(process.resourceUsage().maxRSS * 1024);
  collect();
  const memoryAfterScanGc = memory();
  const snapshot = scan.value;

  // The scanner's publish (services/scanner-ingest/src/publish.ts), up to the send.
  const encode = await timed(() => {
    const bytes = new TextEncoder().encode(JSON.stringify(Snapshot.parse(snapshot)));
    return { bytes, message: encodeSnapshotMessage(bytes), hash: sha256(bytes) };
  });
  const { bytes, message, hash } = encode.value;
  // The board's consumer (services/board/src/consumer.ts), before it stores.
  const decode = await timed(() => {
    const json = decodeSnapshotMessage(message.data, message.headers);
    const s = Snapshot.parse(JSON.parse(new TextDecoder().decode(json)));
    return { s, hash: sha256(json) };
  });
  const received = decode.value.s;
  if (decode.value.hash !== hash) throw new Error("the received snapshot hashes differently");

  log(`${size} names: publication ...`);
  const input = { current: received.board, currentHash: hash, snapshot: received, delayed: delayed.board, snapshotsStored: 2 };
  const buildFirst = await timed(() => buildPublication(input));
  const again: Timed[] = [];
  let pub = buildFirst.value;
  for (let i = 0; i < 3; i++) {
    const b = await timed(() => buildPublication(input));
    again.push(b);
    pub = b.value;
  }
  const build = { wallMs: median(again.map((b) => b.wallMs)), cpuMs: median(again.map((b) => b.cpuMs)) };

  const deps: ReadDeps = { publication: () => pub, now: () => READ_AT, refreshMinutes: 5 };
  const reply = (encoding: "identity" | "gzip") => {
    const r = readView(deps, { view: "agent", encoding });
    if (r.meta.encoding !== encoding) throw new Error(`agent: asked ${encoding}, got ${r.meta.encoding}`);
    const headerBytes = metaHeaderBytes(r.meta);
    return { bodyBytes: r.body.length, headerBytes, messageBytes: r.body.length + headerBytes };
  };
  log(`${size} names: full-board reads ...`);
  const identity = { ...reply("identity"), ...timeReads(deps, "identity", readSeconds) };
  const gzip = { ...reply("gzip"), ...timeReads(deps, "gzip", readSeconds) };
  const snapshotHeaders = snapshotHeaderBytes(message.headers, hash);

  return {
    names: universe.entries.length,
    stocks: universe.entries.filter((e) => e.kind === "stock").length,
    firstScan: { wallMs: first.wallMs, cpuMs: first.cpuMs, gcMs: first.gcMs },
    scan: { wallMs: scan.wallMs, cpuMs: scan.cpuMs, gcMs: scan.gcMs },
    memoryBefore,
    memoryAfterScan,
    memoryAfterScanGc,
    peakRssMb,
    snapshot: { jsonBytes: bytes.length, gzipBytes: message.data.length, headerBytes: snapshotHeaders, messageBytes: message.data.length + snapshotHeaders },
    publish: {
      encode: { wallMs: encode.wallMs, cpuMs: encode.cpuMs },
      decode: { wallMs: decode.wallMs, cpuMs: decode.cpuMs },
      buildFirst: { wallMs: buildFirst.wallMs, cpuMs: buildFirst.cpuMs },
      build,
      toLive: { wallMs: encode.wallMs + decode.wallMs + build.wallMs, cpuMs: encode.cpuMs + decode.cpuMs + build.cpuMs },
    },
    board: { identity, gzip },
    views: viewSizes(pub, deps),
  };
}

/** The two start-up scans alone: does the scoring pass complete under this process's heap limit? */
async function scansOnly(size: number): Promise<{ ok: true; wallMs: number }> {
  const universe = scaledUniverse(size);
  const provider = new MarketSimulator(universe.entries);
  const t0 = performance.now();
  await buildSnapshot({ universe, provider, ...CLOSE_SCAN });
  await buildSnapshot({ universe, provider, ...SCAN });
  return { ok: true, wallMs: performance.now() - t0 };
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { "read-seconds": { type: "string", default: "1" }, "scans-only": { type: "boolean", default: false } },
});
const size = Number(positionals[0]);
if (!Number.isInteger(size) || size <= 0) {
  process.stderr.write("usage: scale-pass.ts <names> [--read-seconds 1] [--scans-only]\n");
  process.exit(2);
}
(values["scans-only"] ? scansOnly(size) : measure(size, Number(values["read-seconds"]))).then(
  (f) => process.stdout.write(`${JSON.stringify(f)}\n`),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
