import os from "node:os";
import path from "node:path";
import type { EvmChain } from "@board/test-chains/evm";
import { request } from "undici";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { DEFAULT_PAID_PAYERS, helpText, parseBenchArgs, ROW_IDS, type Cadence, type RowId } from "./args.js";
import { benchNamePage, benchSectorPage } from "./boards.js";
import { ceilingWidths, startBareServer, type BareBody, type BareServer, type CeilingServer } from "./ceiling.js";
import { benchReceiptSigning, benchRecovery } from "./ecdsa.js";
import { loadBenchEnv } from "./env.js";
import { ChainThread } from "./chain.js";
import { benchInfra, type BenchInfra } from "./infra.js";
import { paymentRequiredOf } from "./payments.js";
import { startReference } from "./reference.js";
import { machine, render, shapeOf, writeReport, type BenchReport, type RowResult } from "./report.js";
import { historyReads, type HistoryRowId } from "./history.js";
import { Bench, log, PAID_PATH, rowChain, type RowChain } from "./rows.js";
import { BenchProcesses } from "./processes.js";
import { BenchStack } from "./stack.js";
import { FREE_READS_PER_PRINCIPAL, freeKeys, licenseAndBearer, roundRobin, signIn, timeChecks, walletHeaders } from "./tiers.js";

const FREE_PATH = "/api/board/free";
/** The full board: the largest view (licensed), and its free preview (previous day, top 3 per book). */
const BOARD_PATH = "/api/board/agent";
const PREVIEW_PATH = "/api/board/agent?preview=1";
/** The bare server's paths for the full board's bytes, plain and gzipped. */
const BARE_BOARD = "/board";
const BARE_BOARD_GZIP = "/board.gz";
const MCP_CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_status", arguments: {} } });
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const STATUS_PATH = "/api/board/status";
/** Lanes of the wide paid row, beside the --paid-concurrency one: batches fill as lanes grow. */
const PAID_WIDE_LANES = 64;
/** How the paid rows' labels name a chain cadence. */
const CADENCE_LABELS: Record<Cadence, string> = { instant: "", "100ms": ", a block every 100 ms", "2s": ", a block every 2 s" };
/** The stack's offer validity (its maximum); the reference is given the same. */
const PAYMENT_TIMEOUT_SECONDS = 3600;

/** The bytes a GET answers with 200, without Accept-Encoding (what the load generator asks for too). */
async function bytesOf(url: string, headers: Record<string, string> = {}): Promise<Buffer> {
  const res = await request(url, { headers });
  const body = Buffer.from(await res.body.arrayBuffer());
  if (res.statusCode !== 200) throw new Error(`GET ${url}: ${res.statusCode} ${body.toString("utf8", 0, 300)}`);
  if (headers["accept-encoding"] === "gzip" && res.headers["content-encoding"] !== "gzip") throw new Error(`GET ${url}: asked for gzip, got ${String(res.headers["content-encoding"])}`);
  return body;
}

/**
 * npm run bench: the ceiling, free reads and x402 paid reads through the stack, the x402
 * reference, and the two signature recoveries; a table on stdout, JSON in bench/results.
 */
async function main(): Promise<number> {
  const parsed = parseBenchArgs(process.argv.slice(2));
  if (parsed === "help") {
    console.log(helpText);
    return 0;
  }
  const args = parsed;
  const report: BenchReport = { startedAt: new Date().toISOString(), machine: machine(), params: args, infra: null, rows: [], recovery: [], checks: [], problems: [], ok: false };
  const bench = new Bench(args);

  // First, on a quiet process: the two signature recoveries alone.
  if (bench.want("recovery")) {
    log("signature recovery, one core ...");
    report.recovery = [...(await benchRecovery(args.recoverySeconds)), await benchReceiptSigning(args.recoverySeconds)];
    for (const b of report.recovery) if (b.wrong > 0) bench.problems.push(`${b.name}: ${b.wrong} recoveries gave a wrong address`);
  }

  // Every row but the signature recoveries runs against the stack.
  const loadRows: RowId[] = ROW_IDS.filter((r) => r !== "recovery");
  let infra: BenchInfra | null = null;
  let stack: BenchStack | BenchProcesses | null = null;
  const bare: CeilingServer[] = [];
  let reference = null as BareServer | null;
  let chains: ChainThread | null = null;
  let chain: RowChain | null = null;
  const closeChain = async () => {
    await chain?.chain.stop();
    chain = null;
  };
  const payersOn = (cadence: Cadence) => args.paidPayers ?? DEFAULT_PAID_PAYERS[cadence];
  const engineOf = (cadence: Cadence) => (cadence === "2s" ? args.chain2s : "edr");
  try {
    if (loadRows.some((r) => bench.want(r))) {
      infra = await benchInfra(loadBenchEnv());
      report.infra = { nats: infra.nats, database: "fresh database on DATABASE_URL" };
      log(`starting the stack (gateway, board, identity, metering, payments${args.stack === "processes" ? ", each its own process" : ", all in this process"}) on ${infra.nats} ...`);
      const s = (stack = args.stack === "processes" ? new BenchProcesses(infra) : new BenchStack(infra));
      if (s instanceof BenchProcesses) bench.serviceCpu = () => s.cpuMs();
      await s.start();
      const chainThread = (chains = new ChainThread());
      const payTo: Address = privateKeyToAccount(generatePrivateKey()).address;
      const paymentsEnv = (verifier: "native" | "viem", evm: EvmChain) => ({
        PAY_TO_BASE: payTo,
        BASE_RPC_URL: evm.rpcUrl,
        BASE_FACILITATOR_KEY: evm.accounts[0] as Hex,
        PUBLIC_BASE_URL: "http://127.0.0.1:8080",
        EVM_VERIFIER: verifier,
        PAYMENT_TIMEOUT_SECONDS: String(PAYMENT_TIMEOUT_SECONDS),
      });

      // The bytes every row serves, taken from the stack once (one paid read for the regime body).
      const freeBody = await bytesOf(`${s.base}${FREE_PATH}`);
      chain = await rowChain(chainThread, "instant", payersOn("instant"));
      await s.startPayments(paymentsEnv("native", chain.chain));
      const stackRequired = await paymentRequiredOf(`${s.base}${PAID_PATH}`);
      const offer = stackRequired.accepts[0];
      if (!offer) throw new Error("the stack's 402 offers nothing");
      const [onePayment] = await chain.payers.sign(stackRequired, 1);
      const regimeBody = await bytesOf(`${s.base}${PAID_PATH}`, { "payment-signature": onePayment as string });
      // A scanner license reads every paid route live and uncapped: the licensed rows' credential.
      const history = historyReads();
      const historyIds = Object.keys(history) as HistoryRowId[];
      const wantsHistory = historyIds.some((id) => bench.want(id) || bench.want(`ceiling-${id}`));
      const wantsLicense = wantsHistory || (["license", "bearer", "checks", "license-board", "license-board-gzip", "ceiling-board", "ceiling-board-gzip"] as const).some((r) => bench.want(r));
      const licensed = wantsLicense ? await licenseAndBearer(s.nc, s.base) : null;
      const licenseHeader = licensed ? { "x-license-key": licensed.license } : null;
      const boardBody = licenseHeader ? await bytesOf(`${s.base}${BOARD_PATH}`, licenseHeader) : null;
      const boardGzip = licenseHeader ? await bytesOf(`${s.base}${BOARD_PATH}`, { ...licenseHeader, "accept-encoding": "gzip" }) : null;
      log(`bodies: ${FREE_PATH} ${freeBody.length} B, ${PAID_PATH} ${regimeBody.length} B${boardBody && boardGzip ? `, ${BOARD_PATH} ${boardBody.length} B (gzip ${boardGzip.length} B)` : ""}`);

      // The ceilings: node:http alone serving the same bytes as the rows compared with them, in
      // processes of its own: one, and a cluster with a worker per core; each row takes the faster.
      const bareBodies = new Map<string, BareBody>([[FREE_PATH, { body: freeBody }]]);
      if (boardBody && boardGzip) {
        bareBodies.set(BARE_BOARD, { body: boardBody });
        bareBodies.set(BARE_BOARD_GZIP, { body: boardGzip, encoding: "gzip" });
      }
      if (wantsHistory && licenseHeader) {
        for (const id of historyIds) {
          const body = await bytesOf(`${s.base}${history[id].path}`, licenseHeader);
          bareBodies.set(history[id].barePath, { body });
          log(`bodies: ${history[id].path} ${body.length} B`);
        }
      }
      const ceilingIds: RowId[] = ["ceiling", "ceiling-board", "ceiling-board-gzip", ...historyIds.map((id) => `ceiling-${id}` as const)];
      if (ceilingIds.some((id) => bench.want(id))) {
        for (const workers of ceilingWidths()) bare.push(await startBareServer(bareBodies, workers));
        log(`ceiling servers: ${bare.map((b) => `${shapeOf(b.workers)} on ${b.base}`).join(", ")}`);
      }
      const ceilingRow = (id: RowId, label: string, barePath: string, opts: { requireHeader?: string } = {}) =>
        bench.row(id, label, barePath, args.freeConcurrency, () => bench.ceiling(id, label, bare, barePath, opts));
      const ceilings = {
        ceiling: await ceilingRow("ceiling", "ceiling (bare node:http)", FREE_PATH),
        "ceiling-board": await ceilingRow("ceiling-board", "ceiling (bare node:http), full board bytes", BARE_BOARD),
        "ceiling-board-gzip": await ceilingRow("ceiling-board-gzip", "ceiling (bare node:http), full board gzip bytes", BARE_BOARD_GZIP, { requireHeader: "content-encoding" }),
      };
      const historyCeilings = new Map<string, RowResult | null>();
      for (const id of historyIds) {
        historyCeilings.set(id, await ceilingRow(`ceiling-${id}`, `ceiling (bare node:http), ${history[id].label} bytes`, history[id].barePath));
      }
      for (const b of bare.splice(0)) await b.stop();

      await bench.row("free", "free read, stack", FREE_PATH, args.freeConcurrency, () => bench.timed("free", "free read, stack", s.base, FREE_PATH));
      await bench.row("preview", "free preview, stack", PREVIEW_PATH, args.freeConcurrency, () => bench.timed("preview", "free preview, stack", s.base, PREVIEW_PATH));
      await bench.row("status", "free read, stack", STATUS_PATH, args.freeConcurrency, () => bench.timed("status", "free read, stack", s.base, STATUS_PATH));
      // A free page per name (HTML with its chart, rendered once per board): no ceiling of the same bytes is run, so no ratio.
      const namePage = benchNamePage();
      await bench.row("name-page", "name page, stack", namePage, args.freeConcurrency, () => bench.timed("name-page", "name page, stack", s.base, namePage));
      const sectorPage = benchSectorPage();
      await bench.row("sector-page", "sector page, stack", sectorPage, args.freeConcurrency, () => bench.timed("sector-page", "sector page, stack", s.base, sectorPage));
      await bench.row("audit-page", "audit page, stack", "/audit", args.freeConcurrency, () => bench.timed("audit-page", "audit page, stack", s.base, "/audit"));
      // The API reference (its HTML; the hashed assets it loads are cached by the browser, so not read per view).
      await bench.row("docs-page", "docs page, stack", "/docs", args.freeConcurrency, () => bench.timed("docs-page", "docs page, stack", s.base, "/docs"));
      await bench.row("license-board", "licensed full board (X-License-Key)", BOARD_PATH, args.freeConcurrency, () =>
        bench.timed("license-board", "licensed full board (X-License-Key)", s.base, BOARD_PATH, { headers: licenseHeader! }),
      );
      await bench.row("license-board-gzip", "licensed full board, gzip", BOARD_PATH, args.freeConcurrency, () =>
        bench.timed("license-board-gzip", "licensed full board, gzip", s.base, BOARD_PATH, { headers: { ...licenseHeader!, "accept-encoding": "gzip" }, requireHeader: "content-encoding" }),
      );
      // The history reads, answered per request from the board's history tables.
      for (const id of historyIds) {
        await bench.row(id, history[id].label, history[id].path, args.freeConcurrency, () => bench.timed(id, history[id].label, s.base, history[id].path, { headers: licenseHeader! }));
      }

      // The tiers on the same read (/api/board/regime): each request carries its credential.
      // Free tiers count 25 a day per key or address, so their load is spread round-robin.
      const tierRow = (id: RowId, label: string, header: string, values: () => Promise<string[]>) =>
        bench.row(id, label, PAID_PATH, args.freeConcurrency, async () => bench.timedWith(id, label, s.base, PAID_PATH, header, await values()));
      const creds: { freeKey?: string; wallet?: string; license?: string; bearer?: string } = {};
      await tierRow("free-key", "free key tier (X-Board-Key)", "x-board-key", async () => {
        const keys = await freeKeys(s.base, args.freePrincipals);
        creds.freeKey = keys[0];
        return roundRobin(keys, FREE_READS_PER_PRINCIPAL);
      });
      await tierRow("wallet", "wallet tier (SIGN-IN-WITH-X)", "sign-in-with-x", async () => {
        const headers = await walletHeaders(s.base, PAID_PATH, args.freePrincipals);
        await signIn(s.base, PAID_PATH, headers);
        creds.wallet = headers[0];
        return roundRobin(headers, FREE_READS_PER_PRINCIPAL - 1);
      });
      if (licensed) Object.assign(creds, licensed);
      const many = (v: string) => Array<string>(args.maxLicensedRequests).fill(v);
      await tierRow("license", "licensed small read (X-License-Key)", "x-license-key", async () => many(licensed!.license));
      await tierRow("bearer", "OAuth bearer (ES256 JWT)", "authorization", async () => many(licensed!.bearer));
      // MCP: one stateless tools/call per POST (a server and transport per request), the free
      // status read, beside the same read over plain HTTP above.
      await bench.row("mcp", "MCP tools/call get_status", "/mcp", args.freeConcurrency, () =>
        bench.timedPost("mcp", "MCP tools/call get_status", s.base, "/mcp", MCP_CALL, MCP_HEADERS),
      );
      if (bench.want("checks")) {
        log("tier checks alone ...");
        try {
          const freeKey = creds.freeKey ?? (await freeKeys(s.base, 1))[0]!;
          const wallet = creds.wallet ?? (await walletHeaders(s.base, PAID_PATH, 1))[0]!;
          report.checks = await timeChecks(s.nc, { freeKey, wallet, license: licensed!.license, bearer: licensed!.bearer }, args.checkCalls);
        } catch (err) {
          bench.problems.push(`tier checks: did not run: ${err instanceof Error ? err.message : String(err)}`);
        }
      }

      const stackRow = async (id: RowId, label: string, verifier: "native" | "viem", lanes = args.paidConcurrency, cadence: Cadence = "instant", extra: Record<string, string> = {}) =>
        bench.row(id, label, PAID_PATH, lanes, async () => {
          await closeChain();
          const c = (chain = await rowChain(chainThread, cadence, payersOn(cadence), engineOf(cadence)));
          await s.startPayments({ ...paymentsEnv(verifier, c.chain), ...extra });
          return bench.paid(id, label, s.base, await paymentRequiredOf(`${s.base}${PAID_PATH}`), c, () => c.chain.balanceOf(payTo), lanes);
        });
      await stackRow("paid-native", "x402 paid, stack (native ecdsa)", "native");
      await stackRow("paid-native-64", "x402 paid, stack (native ecdsa), 64 lanes", "native", PAID_WIDE_LANES);
      await stackRow("paid-viem", "x402 paid, stack (EVM_VERIFIER=viem)", "viem");
      // The same paid read on chains that mine on an interval, as real chains do (Base: 2 s).
      await stackRow("paid-100ms", `x402 paid, stack (native ecdsa)${CADENCE_LABELS["100ms"]}`, "native", args.paidConcurrency, "100ms");
      await stackRow("paid-2s", `x402 paid, stack (native ecdsa)${CADENCE_LABELS["2s"]}`, "native", args.paidConcurrency, "2s");
      // The same, every read waiting for its block: the stack as it was before it answered early.
      const waiting = { ANSWER_BEFORE_BLOCK_MAX_PRICE: "0" };
      await stackRow("paid-100ms-block", `x402 paid, stack, waiting for the block${CADENCE_LABELS["100ms"]}`, "native", args.paidConcurrency, "100ms", waiting);
      await stackRow("paid-2s-block", `x402 paid, stack, waiting for the block${CADENCE_LABELS["2s"]}`, "native", args.paidConcurrency, "2s", waiting);
      await s.stopPayments();

      const referenceRow = (id: RowId, cadence: Cadence) => {
        const label = `x402 reference (@x402/express)${CADENCE_LABELS[cadence]}`;
        return bench.row(id, label, PAID_PATH, args.paidConcurrency, async () => {
          await closeChain();
          await reference?.stop();
          reference = null;
          const c = (chain = await rowChain(chainThread, cadence, payersOn(cadence), engineOf(cadence)));
          const ref = (reference = await startReference({
            path: PAID_PATH,
            body: regimeBody,
            price: BigInt(offer.amount),
            payTo,
            usdc: c.chain.usdc,
            rpcUrl: c.chain.rpcUrl,
            facilitatorKey: c.chain.accounts[1] as Hex,
            maxTimeoutSeconds: offer.maxTimeoutSeconds,
          }));
          const required = await paymentRequiredOf(`${ref.base}${PAID_PATH}`);
          const theirs = required.accepts[0];
          if (!theirs || theirs.amount !== offer.amount || theirs.payTo !== offer.payTo || theirs.asset !== offer.asset || theirs.network !== offer.network || theirs.maxTimeoutSeconds !== offer.maxTimeoutSeconds) {
            throw new Error(`the reference's offer differs from the stack's: ${JSON.stringify(theirs)} vs ${JSON.stringify(offer)}`);
          }
          return bench.paid(id, label, ref.base, required, c, () => c.chain.balanceOf(payTo));
        });
      };
      await referenceRow("reference", "instant");
      await referenceRow("reference-100ms", "100ms");
      await referenceRow("reference-2s", "2s");

      // Each row against the ceiling that served the same kind of bytes.
      const ceilingFor = (id: string): keyof typeof ceilings => (id === "license-board" || id === "ceiling-board" ? "ceiling-board" : id === "license-board-gzip" || id === "ceiling-board-gzip" ? "ceiling-board-gzip" : "ceiling");
      for (const r of bench.rows) {
        if (r.id === "name-page" || r.id === "sector-page" || r.id === "audit-page" || r.id === "docs-page") continue;
        const c = historyIds.includes(r.id as HistoryRowId) || historyIds.some((id) => r.id === `ceiling-${id}`) ? historyCeilings.get(r.id.replace(/^ceiling-/, "")) : ceilings[ceilingFor(r.id)];
        if (!c?.requestsPerSecond) continue;
        r.ratioToCeiling = r.requestsPerSecond / c.requestsPerSecond;
        r.ceilingRow = c.id;
      }
    }
  } catch (err) {
    bench.problems.push(`the bench stopped: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  } finally {
    await bench.close();
    for (const b of bare.splice(0)) await b.stop();
    await reference?.stop();
    await stack?.stop().catch((err: unknown) => bench.problems.push(`stopping the stack: ${String(err)}`));
    await closeChain();
    await chains?.close();
    await infra?.stop();
  }

  report.machine.loadAverageAfter = os.loadavg().map((l) => Math.round(l * 100) / 100);
  report.rows = bench.rows;
  report.problems = bench.problems;
  report.ok = bench.problems.length === 0;
  await writeReport(args.out, report);
  // The history: every run stays in the repo beside latest.json, named by its start time.
  if (args.history === "on") await writeReport(path.join(path.dirname(args.out), "history", `${report.startedAt.replace(/[:.]/g, "-")}.json`), report);
  console.log(render(report));
  console.log(`\nresults: ${args.out}`);
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
