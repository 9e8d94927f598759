import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { addTradingDays, sessionOn, tradingDayOf } from "@board/market-calendar";
import { freePort, killHard, TestNatsServer } from "@board/service-kit/testing";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { createPublicClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rulesYaml } from "../../deploy/prometheus/rules.js";
import { TcpProxy } from "./fault-proxy.js";
import { Stack, until } from "./harness.js";
import { KubeStateMetricsStandIn, PodAddress } from "./kube-stand-in.js";
import { prometheusBinary, PrometheusServer, type ApiAlert } from "./prometheus-server.js";
import { AcceleratedClock } from "./test-clock.js";

// The shipped alerting rules (deploy/prometheus/rules.ts), in a real Prometheus server scraping
// a running stack, fire on real faults and resolve after the heal, as Prometheus's HTTP API
// (/api/v1/alerts) says:
//   - the scanner stopped in market hours: BoardFreshnessBudgetBurn (critical) and
//     ServiceNoReadyReplica{deployment="scanner-ingest"};
//   - a served paid read whose transfer is never mined (the chain stops mining): PaymentClaimsUnsettled{stage="pending"};
//   - a ready service Prometheus can no longer reach (metering): ServiceNotScraped;
//   - the board killed (SIGKILL, its only replica): ServiceNoReadyReplica{deployment="board"};
//   - payments restarted while Base's RPC is unreachable: PaymentRailDown{rail="base"}.
//
// Time: the rules are the generator's, rendered at TIME_SCALE (every `for:`, range window and
// bound compared with time() divided by 60: a minute in a second), and the scanner and the
// board run on a clock SPEED times the wall clock, in market hours (from 15 minutes after the
// open of the next full session), so what they measure (a board's age) is compressed alike.
// Payments runs on the wall clock; its claims' bound is Prometheus's (time() - the claim's start).
//
// The cluster's parts are stand-ins at their boundary, named as such (kube-stand-in.ts): each
// pod's address a local port forwarding to the replica's health port, relabelled as
// kubernetes_sd would be; kube-state-metrics' two Deployment series from the replicas' /readyz.
// The stack runs on a nats-server of this file's own (another file's services must not answer
// for a killed one of ours).

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SPEED = 60;
const TIME_SCALE = 1 / SPEED;
/**
 * 15 minutes after the open of the next full session (not an early close): the market is open
 * for six hours of the test clock (six wall minutes) from there. Always ahead of the wall clock,
 * which Prometheus's time() reads.
 */
function marketOpenAnchor(now = new Date()): Date {
  for (let day = addTradingDays(tradingDayOf(now), 1); ; day = addTradingDays(day, 1)) {
    const session = sessionOn(day)!;
    if (session.close.getTime() - session.open.getTime() >= 6 * 3_600_000) return new Date(session.open.getTime() + 15 * 60_000);
  }
}
const NAMESPACE = "board-e2e";
const DEPLOYMENTS = ["gateway", "board", "identity", "metering", "payments", "scanner-ingest"] as const;
type Deployment = (typeof DEPLOYMENTS)[number];
const PAID_PATH = "/api/board/regime";
/** How long an alert may take to fire, or to resolve after the heal: its scaled `for:` and windows are seconds; the rest is scrape, evaluation and load. */
const FIRE_MS = 60_000;
const RESOLVE_MS = 90_000;

const stack = new Stack();
let nats: TestNatsServer | null = null;
let chain: EvmChain;
/** Base's RPC as payments reaches it: cut to take the chain away from payments. */
let rpcProxy: TcpProxy;
let prometheus: PrometheusServer | null = null;
let ksm: KubeStateMetricsStandIn | null = null;
const pods = {} as Record<Deployment, PodAddress>;
const clock = new AcceleratedClock(marketOpenAnchor(), SPEED);
const payTo = privateKeyToAccount(generatePrivateKey()).address;
/** The processes of this file: the scanner, and the board replica that is killed. */
const children = new Set<ChildProcess>();
let scanner: ChildProcess | null = null;
let boardProcess: ChildProcess | null = null;
/** Fixed health ports of the spawned replicas (the same after a restart). */
let scannerHealthPort = 0;
let boardHealthPort = 0;
const figures: Record<string, Record<string, number>> = {};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => Math.round(ms / 100) / 10;

const paymentsEnv = () => ({
  PAY_TO_BASE: payTo,
  BASE_RPC_URL: rpcProxy.urlThrough(chain.rpcUrl),
  BASE_FACILITATOR_KEY: chain.accounts[0] as Hex,
  // Reconciliation's horizon and period (60 s shipped), compressed like the rules.
  RECONCILE_AFTER_SECONDS: "2",
  // A rail down is asked again within a second once its backend answers.
  RAIL_RETRY_INITIAL_MS: "250",
  RAIL_RETRY_MAX_MS: "1000",
  RAIL_PROBE_TIMEOUT_MS: "2000",
});

/** A process of this file, started from the repository's root with tsx; resolves once `ready` says so. */
async function spawnReady(name: string, script: string[], env: Record<string, string>, ready: () => Promise<boolean>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", ...script], { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-3000)));
  await until(async () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited: ${stderr}`);
    return ready();
  }, 45_000);
  return child;
}

const readyz = (port: number) =>
  fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
    (r) => r.status === 200,
    () => false,
  );

async function startScanner(): Promise<ChildProcess> {
  scanner = await spawnReady(
    "scanner-ingest",
    ["test/integration/scanner-on-test-clock.ts", ...clock.args()],
    { ...stack.busEnv("scanner-ingest"), HEALTH_PORT: String(scannerHealthPort), LOG_LEVEL: "warn", REFRESH_MINUTES: "5" },
    () => readyz(scannerHealthPort),
  );
  return scanner;
}

async function startBoardProcess(): Promise<ChildProcess> {
  boardProcess = await spawnReady(
    "board",
    ["services/board/src/main.ts"],
    { ...stack.busEnv("board"), DATABASE_URL: stack.databaseUrl, HEALTH_PORT: String(boardHealthPort), LOG_LEVEL: "warn", INSTANCE_ID: "board-killed" },
    () => readyz(boardHealthPort),
  );
  return boardProcess;
}

/** The health ports of each Deployment's replicas now (the readiness probe's targets). */
function healthPorts(d: Deployment): number[] {
  const inProcess = { gateway: stack.gateway, board: stack.board, identity: stack.identity, metering: stack.metering, payments: stack.payments, "scanner-ingest": null }[d];
  const ports = inProcess ? [inProcess.runtime.health.port] : [];
  if (d === "scanner-ingest" && scanner) ports.push(scannerHealthPort);
  if (d === "board" && boardProcess) ports.push(boardHealthPort);
  return ports;
}

/** Points each pod address at its replica's health port (after a replica changed). */
function repoint() {
  for (const d of DEPLOYMENTS) pods[d].target = healthPorts(d)[0] ?? null;
}

/**
 * Prometheus's configuration: a 1 s scrape and evaluation; each pod's address with the labels
 * kubernetes_sd gives a pod, relabelled as the usual pod scrape config does (namespace, pod; the
 * `service` label is each service's own, on its series); kube-state-metrics with honor_labels.
 */
function prometheusConfig() {
  return {
    global: { scrape_interval: "1s", scrape_timeout: "1s", evaluation_interval: "1s" },
    scrape_configs: [
      {
        job_name: "kubernetes-pods",
        static_configs: DEPLOYMENTS.map((d) => ({
          targets: [`127.0.0.1:${pods[d].port}`],
          labels: { __meta_kubernetes_namespace: NAMESPACE, __meta_kubernetes_pod_name: pods[d].pod, __meta_kubernetes_pod_label_app_kubernetes_io_name: d },
        })),
        relabel_configs: [
          { source_labels: ["__meta_kubernetes_namespace"], target_label: "namespace" },
          { source_labels: ["__meta_kubernetes_pod_name"], target_label: "pod" },
          { source_labels: ["__meta_kubernetes_pod_label_app_kubernetes_io_name"], target_label: "job" },
        ],
      },
      { job_name: "kube-state-metrics", honor_labels: true, static_configs: [{ targets: [`127.0.0.1:${ksm!.port}`] }] },
    ],
  };
}

// ---------------------------------------------------------------- alerts, as Prometheus's API lists them

const matches = (a: ApiAlert, alertname: string, labels: Record<string, string>) =>
  a.labels.alertname === alertname && a.labels.namespace === NAMESPACE && Object.entries(labels).every(([k, v]) => a.labels[k] === v);

const describeAlerts = (alerts: ApiAlert[]) => alerts.map((a) => `${a.labels.alertname}${JSON.stringify(a.labels)} ${a.state}`).join("\n");

/** Waits until the alert is firing (`firing`) or no longer firing (`resolved`), polling /api/v1/alerts; how long it took, in ms. */
async function untilAlert(alertname: string, labels: Record<string, string>, want: "firing" | "resolved", ms: number): Promise<number> {
  const started = performance.now();
  let last: ApiAlert[] = [];
  for (;;) {
    last = await prometheus!.alerts();
    const firing = last.some((a) => matches(a, alertname, labels) && a.state === "firing");
    if (firing === (want === "firing")) return performance.now() - started;
    if (performance.now() - started > ms) {
      throw new Error(`${alertname}${JSON.stringify(labels)} not ${want} within ${ms / 1000} s; alerts now:\n${describeAlerts(last)}`);
    }
    await sleep(500);
  }
}

/**
 * One fault: injected, each of its alerts seen firing, healed, each seen resolved; the
 * times from injection to firing and from the heal to resolution go in `figures`.
 */
async function seenFiringThenResolved(name: string, alerts: [string, Record<string, string>][], fault: () => Promise<void>, heal: () => Promise<void>) {
  const t0 = performance.now();
  await fault();
  const fired = await Promise.all(alerts.map(([a, l]) => untilAlert(a, l, "firing", FIRE_MS).then(() => performance.now() - t0)));
  const t1 = performance.now();
  await heal();
  const resolved = await Promise.all(alerts.map(([a, l]) => untilAlert(a, l, "resolved", RESOLVE_MS).then(() => performance.now() - t1)));
  figures[name] = Object.fromEntries(alerts.flatMap(([a], i) => [[`${a}_fired_s`, seconds(fired[i]!)], [`${a}_resolved_after_heal_s`, seconds(resolved[i]!)]]));
}

// ---------------------------------------------------------------- a paid read

const chainRpc = (method: string, params: unknown[] = []) =>
  createPublicClient({ chain: chain.chain, transport: http(chain.rpcUrl) }).request({ method: method as never, params: params as never });

/** A payment for PAID_PATH signed by @x402/evm's client from the route's 402, by a payer funded (minted, so mined) first. */
async function signedPayment(): Promise<string> {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.mint(account.address, 100_000n);
  const offered = await fetch(`${stack.base}${PAID_PATH}`);
  expect(offered.status).toBe(402);
  const required = decodePaymentRequiredHeader(offered.headers.get("payment-required")!);
  required.accepts = required.accepts.filter((a) => a.network === "eip155:8453").slice(0, 1);
  const client = x402Client.fromConfig({ schemes: [] }).register("eip155:*", new ExactEvmScheme(account));
  return encodePaymentSignatureHeader(await client.createPaymentPayload(required));
}

/** The paid read bought with `payment`: its answer's status and PAYMENT-RESPONSE's settlement. */
async function buyRead(payment: string): Promise<{ status: number; settlement?: string }> {
  const res = await fetch(`${stack.base}${PAID_PATH}`, { headers: { "payment-signature": payment }, signal: AbortSignal.timeout(20_000) });
  await res.arrayBuffer();
  const header = res.headers.get("payment-response");
  return { status: res.status, settlement: header ? (decodePaymentResponseHeader(header) as { settlement?: string }).settlement : undefined };
}

// ---------------------------------------------------------------- the stack and Prometheus

beforeAll(async () => {
  prometheusBinary();
  nats = await TestNatsServer.start();
  [chain, scannerHealthPort, boardHealthPort] = await Promise.all([startEvmChain({ accounts: 2 }), freePort(), freePort()]);
  const rpc = new URL(chain.rpcUrl);
  rpcProxy = new TcpProxy({ host: rpc.hostname, port: Number(rpc.port) });
  await rpcProxy.listen();
  await stack.start({ natsUrl: nats.url, natsSeeds: nats.seeds });
  await stack.startBoard({ now: clock.now });
  await stack.startPayments(paymentsEnv());
  await startScanner();
  // The scanner's board of now is served before Prometheus starts: a board replica with nothing to serve is stale.
  await until(() => stack.board?.publication()?.board.intraday === true, 45_000);
  for (const d of DEPLOYMENTS) pods[d] = await new PodAddress(d, `${d}-0`).listen();
  repoint();
  ksm = await new KubeStateMetricsStandIn(NAMESPACE, Object.fromEntries(DEPLOYMENTS.map((d) => [d, { replicas: 1, healthPorts: () => healthPorts(d) }]))).listen();
  prometheus = await PrometheusServer.start({
    config: prometheusConfig(),
    rules: rulesYaml({ timeScale: TIME_SCALE }),
    // The 5 minutes an instant query looks back for a sample, compressed like the rules.
    args: ["--query.lookback-delta=5s"],
  });
  await until(async () => {
    const targets = await prometheus!.targets();
    return targets.length === DEPLOYMENTS.length + 1 && targets.every((t) => t.health === "up");
  }, 30_000);
  await until(async () => (await prometheus!.query("namespace:board_fresh_in_market_hours:bool"))[0]?.value[1] === "1", 30_000);
}, 180_000);

afterAll(async () => {
  rpcProxy?.restore();
  await chainRpc("evm_setAutomine", [true]).catch(() => undefined);
  await prometheus?.stop();
  await Promise.all([...children].map((c) => killHard(c)));
  await Promise.race([stack.stop().catch(() => undefined), sleep(20_000)]);
  await ksm?.close();
  await Promise.all(Object.values(pods).map((p) => p.close()));
  await rpcProxy?.close();
  await chain?.stop();
  await nats?.stop();
  console.info(`alerts-fire-and-resolve figures: ${JSON.stringify(figures)}`);
}, 60_000);

describe("the shipped alerts in a real Prometheus, on real faults of a running stack", () => {
  const underTest = ["ServiceNoReadyReplica", "ServiceNotScraped", "PaymentRailDown", "PaymentClaimsUnsettled", "BoardFreshnessBudgetBurn"];

  it("scrapes every pod with the labels the rules read, and nothing under test fires on the healthy stack", async () => {
    const up = await prometheus!.query('up{job!="kube-state-metrics"}');
    expect(up.map((s) => [s.metric.job, s.metric.namespace, s.metric.pod, s.value[1]]).sort()).toEqual(DEPLOYMENTS.map((d) => [d, NAMESPACE, `${d}-0`, "1"]).sort());
    // The `service` label is each service's own, on its series.
    const services = await prometheus!.query("max by (service, pod) (process_start_time_seconds)");
    expect(services.map((s) => `${s.metric.service}/${s.metric.pod}`).sort()).toEqual(DEPLOYMENTS.map((d) => `${d}/${d}-0`).sort());
    expect((await prometheus!.query('payments_rail_up{rail="base"}'))[0]?.value[1]).toBe("1");
    // A few evaluations of every rule on the healthy stack.
    await sleep(3000);
    const alerts = (await prometheus!.alerts()).filter((a) => underTest.includes(a.labels.alertname ?? ""));
    expect(describeAlerts(alerts)).toBe("");
  }, 30_000);

  it(
    "the scanner stopped in market hours, a paid read left unsettled, metering out of Prometheus's reach: each alert fires, then resolves after the heal",
    async () => {
      await Promise.all([
        seenFiringThenResolved(
          "scanner_stopped",
          [
            ["BoardFreshnessBudgetBurn", { severity: "critical" }],
            ["ServiceNoReadyReplica", { deployment: "scanner-ingest" }],
          ],
          async () => {
            await killHard(scanner!);
            scanner = null;
          },
          async () => {
            await startScanner();
          },
        ),
        seenFiringThenResolved(
          "claim_unsettled",
          [["PaymentClaimsUnsettled", { stage: "pending" }]],
          async () => {
            const payment = await signedPayment();
            // The chain stops mining: the read is answered before its block, its transfer sent and never mined.
            await chainRpc("evm_setAutomine", [false]);
            expect(await buyRead(payment)).toEqual({ status: 200, settlement: "pending" });
          },
          async () => {
            // Its block and one more: a read answered before its block is final two blocks deep (SETTLEMENT_FINAL_CONFIRMATIONS).
            await chainRpc("evm_mine");
            await chainRpc("evm_mine");
            await chainRpc("evm_setAutomine", [true]);
          },
        ),
        seenFiringThenResolved(
          "metering_not_scraped",
          [["ServiceNotScraped", { deployment: "metering" }]],
          async () => pods.metering.cut(),
          async () => pods.metering.restore(),
        ),
      ]);
    },
    200_000,
  );

  it(
    "the board's only replica killed, and payments restarted while Base's RPC is unreachable: each alert fires, then resolves after the heal",
    async () => {
      // The board's replica becomes a process (so that it can be SIGKILLed), ready before the one in this process leaves.
      await startBoardProcess();
      await stack.stopBoard();
      repoint();
      await sleep(2000);
      expect(describeAlerts((await prometheus!.alerts()).filter((a) => matches(a, "ServiceNoReadyReplica", { deployment: "board" })))).toBe("");
      await Promise.all([
        seenFiringThenResolved(
          "board_killed",
          [["ServiceNoReadyReplica", { deployment: "board" }]],
          async () => {
            await killHard(boardProcess!);
            boardProcess = null;
          },
          async () => {
            await startBoardProcess();
          },
        ),
        seenFiringThenResolved(
          "rail_down",
          [["PaymentRailDown", { rail: "base" }]],
          async () => {
            rpcProxy.cut("refuse");
            await stack.stopPayments();
            await stack.startPayments(paymentsEnv());
            repoint();
            expect(stack.payments!.watch.report().rails.base).toBe("down");
          },
          async () => {
            rpcProxy.restore();
            await until(() => stack.payments!.watch.isLive("base"), 10_000);
          },
        ),
      ]);
    },
    200_000,
  );
});
