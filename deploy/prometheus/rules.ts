// The Prometheus rules of docs/operations.md: `npx tsx deploy/prometheus/rules.ts` writes
// deploy/prometheus/rules.yml (a plain rule file, for any Prometheus) and
// deploy/k8s/base/monitoring/prometheusrule.yaml (the same groups as a PrometheusRule, for the
// Prometheus Operator). Edit this file, never the two outputs: test/deploy/prometheus-rules.test.ts
// fails when either differs from what this file makes, and runs promtool on them.
//
// Route lists come from proto's catalogue, so a new paid or free route is in its objective at once.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BOARD_EVENTS_PATH, ROUTES, SERVED_READS_STREAM, SNAPSHOT_STREAM } from "@board/proto";
import { Document } from "yaml";

/** Where the runbooks are read: set your repository's address (the pages are docs/runbooks/<alert>.md). */
export const RUNBOOK_BASE_URL = "https://git.example.com/scored-market-board/blob/main/docs/runbooks/";

/** The namespaces the overlays deploy to: kube-state-metrics' series are about every workload of the cluster. */
const OUR_NAMESPACES = 'namespace=~"board-.*"';
const DEPLOYMENTS = ["gateway", "board", "identity", "metering", "payments", "scanner-ingest"] as const;

export interface RecordingRule {
  record: string;
  expr: string;
  labels?: Record<string, string>;
}
export interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: "critical" | "warning" | "info" } & Record<string, string>;
  annotations: { summary: string; description: string; runbook_url: string };
}
export type Rule = RecordingRule | AlertingRule;
export interface RuleGroup {
  name: string;
  rules: Rule[];
}

const root = fileURLToPath(new URL("../..", import.meta.url));
export const RULES_FILE = path.join(root, "deploy/prometheus/rules.yml");
export const PROMETHEUS_RULE_FILE = path.join(root, "deploy/k8s/base/monitoring/prometheusrule.yaml");

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** An anchored alternation of the paths, their common folder written once. */
function routeRegex(paths: readonly string[]): string {
  if (paths.length === 1) return escapeRegex(paths[0]!);
  let prefix = paths[0]!.slice(0, paths[0]!.lastIndexOf("/") + 1);
  while (!paths.every((p) => p.startsWith(prefix))) prefix = prefix.slice(0, prefix.slice(0, -1).lastIndexOf("/") + 1);
  return `${escapeRegex(prefix)}(${paths.map((p) => escapeRegex(p.slice(prefix.length))).join("|")})`;
}
/** Indents every line but the first: a multi-line piece placed after `n` spaces. */
const indent = (text: string, n: number) => text.split("\n").join(`\n${" ".repeat(n)}`);

/** Reads sold per read (any credential: payment, licence, bearer, free key on the free tier's routes). */
export const PAID_ROUTES = ROUTES.filter((r) => r.kind === "paid").map((r) => r.path);
/** The free board reads (the event stream is its own objective: a stream's duration is not a read's latency). */
export const FREE_ROUTES = ROUTES.filter((r) => r.kind === "free" && r.path !== BOARD_EVENTS_PATH).map((r) => r.path);
export const MCP_ROUTES = ROUTES.filter((r) => r.kind === "mcp").map((r) => r.path);

const HTTP = "http_request_duration_seconds";
/** The route matcher on a line of its own: a long alternation is one word, which yamllint lets run past the line length. */
const http = (suffix: "count" | "bucket", routes: readonly string[], extra: string) => `${HTTP}_${suffix}{service="gateway", ${extra},\n  route=~"${routeRegex(routes)}"}`;

/** The windows of the multi-window, multi-burn-rate alerts (Google SRE workbook, chapter 5). */
const WINDOWS = ["5m", "30m", "1h", "2h", "6h", "1d", "3d"] as const;
type Window = (typeof WINDOWS)[number];

/** Page at 2% of a 30-day budget in 1 h or 5% in 6 h; ticket at 10% in 3 days (1 day or 3 days of budget). */
const BURNS = [
  { severity: "critical", long: "1h", short: "5m", factor: 14.4 },
  { severity: "critical", long: "6h", short: "30m", factor: 6 },
  { severity: "warning", long: "1d", short: "2h", factor: 3 },
  { severity: "warning", long: "3d", short: "6h", factor: 1 },
] as const satisfies readonly { severity: string; long: Window; short: Window; factor: number }[];

export interface Slo {
  /** The `slo` label of its recorded error ratios. */
  name: string;
  alert: string;
  /** Share of good events (or good time) over 30 days. */
  objective: number;
  /** What is measured, for the alert's description. */
  sli: string;
  /** PromQL: the error ratio over the range `w` (a Prometheus duration), by namespace (0 when there were events and none was bad). */
  errorRatio(w: string): string;
  /** Recording rules the ratio reads, evaluated before it. */
  before?: RecordingRule[];
}

/** bad / valid by namespace; bad counted 0 when its series does not exist yet (no error ever), not absent. */
const ratio = (bad: (w: string) => string, valid: (w: string) => string) => (w: string) =>
  [
    `(`,
    `  sum by (namespace) (rate(${indent(bad(w), 2)}[${w}]))`,
    `  or`,
    `  0 * sum by (namespace) (rate(${indent(valid(w), 2)}[${w}]))`,
    `)`,
    `/`,
    `sum by (namespace) (rate(${valid(w)}[${w}]))`,
  ].join("\n");
/** 1 - good / valid by namespace. */
const missed = (good: (w: string) => string, valid: (w: string) => string) => (w: string) =>
  [`1 - (`, `  sum by (namespace) (rate(${indent(good(w), 2)}[${w}]))`, `  /`, `  sum by (namespace) (rate(${indent(valid(w), 2)}[${w}]))`, `)`].join("\n");

const ANSWERED = 'status_class=~"2xx|3xx|5xx"';
const FAILED = 'status_class="5xx"';

/** Board freshness: market-hours samples only, 1 when the stalest board replica serves a board at most this old. */
export const FRESH_SECONDS = 600;
export const PAID_LATENCY_SECONDS = "5";
export const FREE_LATENCY_SECONDS = "0.5";
export const SCAN_LAG_SECONDS = "120";
export const FINALITY_SECONDS = "30";

export const SLOS: readonly Slo[] = [
  {
    name: "paid-reads-availability",
    alert: "PaidReadsAvailabilityBudgetBurn",
    objective: 0.999,
    sli: "reads of paid routes answered without a 5xx (4xx such as 402 and 429 are the client's, aborted requests are not counted)",
    errorRatio: ratio(() => http("count", PAID_ROUTES, FAILED), () => http("count", PAID_ROUTES, ANSWERED)),
  },
  {
    name: "paid-reads-latency",
    alert: "PaidReadsLatencyBudgetBurn",
    objective: 0.99,
    sli: `successful (2xx) reads of paid routes answered within ${PAID_LATENCY_SECONDS} s (a read that waits for its block included)`,
    errorRatio: missed(() => http("bucket", PAID_ROUTES, `status_class="2xx", le="${PAID_LATENCY_SECONDS}"`), () => http("count", PAID_ROUTES, 'status_class="2xx"')),
  },
  {
    name: "free-reads-availability",
    alert: "FreeReadsAvailabilityBudgetBurn",
    objective: 0.995,
    sli: "free reads answered without a 5xx",
    errorRatio: ratio(() => http("count", FREE_ROUTES, FAILED), () => http("count", FREE_ROUTES, ANSWERED)),
  },
  {
    name: "free-reads-latency",
    alert: "FreeReadsLatencyBudgetBurn",
    objective: 0.99,
    sli: `successful (2xx) free reads answered within ${FREE_LATENCY_SECONDS} s`,
    errorRatio: missed(() => http("bucket", FREE_ROUTES, `status_class="2xx", le="${FREE_LATENCY_SECONDS}"`), () => http("count", FREE_ROUTES, 'status_class="2xx"')),
  },
  {
    name: "board-freshness",
    alert: "BoardFreshnessBudgetBurn",
    objective: 0.99,
    sli: `market-hours time in which every board replica serves a board at most ${FRESH_SECONDS} s old (intraday providers only)`,
    before: [
      {
        // 1 fresh, 0 stale; only while the market is open, and not for an end-of-day provider (no intraday boards).
        // A missing scanner does not exempt the board: only a scanner saying its provider is end-of-day does.
        record: "namespace:board_fresh_in_market_hours:bool",
        expr: [
          `max by (namespace) (board_snapshot_age_seconds{service="board"}) <= bool ${FRESH_SECONDS}`,
          `and on (namespace)`,
          `max by (namespace) (board_market_open{service="board"}) == 1`,
          `unless on (namespace)`,
          `max by (namespace) (scanner_provider_intraday{service="scanner-ingest"}) == 0`,
        ].join("\n"),
      },
    ],
    errorRatio: (w) => `1 - avg_over_time(namespace:board_fresh_in_market_hours:bool[${w}])`,
  },
  {
    name: "scanner-cadence",
    alert: "ScannerCadenceBudgetBurn",
    objective: 0.99,
    sli: `scheduled scans whose board reached the stream within ${SCAN_LAG_SECONDS} s of their slot (failed scans count as missed)`,
    errorRatio: missed(
      () => `scanner_publish_lag_seconds_bucket{service="scanner-ingest", le="${SCAN_LAG_SECONDS}"}`,
      () => `scanner_scans_total{service="scanner-ingest", outcome=~"published|duplicate|failed"}`,
    ),
  },
  {
    name: "settlement-finality",
    alert: "SettlementFinalityBudgetBurn",
    objective: 0.99,
    sli: `paid reads answered before their block whose transfer was final within ${FINALITY_SECONDS} s (lost and unknown outcomes count as missed)`,
    errorRatio: missed(
      () => `payments_settlement_finality_seconds_bucket{service="payments", outcome="final", le="${FINALITY_SECONDS}"}`,
      () => `payments_settlement_finality_seconds_count{service="payments"}`,
    ),
  },
  {
    name: "event-stream-availability",
    alert: "EventStreamAvailabilityBudgetBurn",
    objective: 0.995,
    sli: `requests for ${BOARD_EVENTS_PATH} not answered 5xx (streams_at_capacity, a stopping replica, errors)`,
    errorRatio: ratio(() => http("count", [BOARD_EVENTS_PATH], FAILED), () => http("count", [BOARD_EVENTS_PATH], ANSWERED)),
  },
  {
    name: "mcp-availability",
    alert: "McpAvailabilityBudgetBurn",
    objective: 0.995,
    sli: `MCP requests (${MCP_ROUTES.join(", ")}) answered without a 5xx`,
    errorRatio: ratio(() => http("count", MCP_ROUTES, FAILED), () => http("count", MCP_ROUTES, ANSWERED)),
  },
  {
    name: "mcp-sessions",
    alert: "McpSessionsBudgetBurn",
    objective: 0.999,
    sli: "MCP initializes given a session rather than refused for a replica's capacity (a client's own cap is not counted)",
    errorRatio: (w) => {
      const refused = `rate(mcp_sessions_refused_total{service="gateway", reason="streams_at_capacity"}[${w}])`;
      const opened = `rate(mcp_sessions_opened_total{service="gateway"}[${w}])`;
      const refusedRate = [`(`, `  sum by (namespace) (${refused})`, `  or`, `  0 * sum by (namespace) (${opened})`, `)`].join("\n");
      return [refusedRate, `/`, `(`, `  sum by (namespace) (${opened})`, `  +`, `  ${indent(refusedRate, 2)}`, `)`].join("\n");
    },
  },
];

const number = (n: number) => String(Number(n.toFixed(10)));

/** How the rules are rendered. */
export interface RuleOptions {
  /**
   * Multiplies every duration Prometheus measures on its own clock: each alert's `for:`, each
   * range window (`[5m]`, the burn rates' 5m ... 3d), and each bound compared with `time()`
   * (a slot or a claim 600 s old). 1, the default, is the shipped rules (rules.yml and the
   * PrometheusRule); test/integration/alerts-fire-and-resolve.test.ts renders the same rules at 1/60, so
   * that a minute of them passes in a second. What the services measure on their own clocks (a
   * board's age, a scan's lag, latency and finality buckets) is not scaled: the test runs those
   * services on a clock of its own.
   */
  timeScale?: number;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Durations as Prometheus reads them, scaled: at 1, what was written, unchanged. */
class Durations {
  constructor(private readonly scale: number) {
    if (!(scale > 0 && scale <= 1)) throw new Error(`timeScale must be in (0, 1], not ${scale}`);
  }

  /** A duration (`5m`, `1h`; a `for:` or a range window), scaled. */
  of(d: string): string {
    if (this.scale === 1) return d;
    const m = /^(\d+)(ms|s|m|h|d|w)$/.exec(d);
    if (!m) throw new Error(`not a simple Prometheus duration: ${d}`);
    const ms = Math.max(1, Math.round(Number(m[1]) * UNIT_MS[m[2]!]! * this.scale));
    return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
  }

  /** A number of seconds compared with `time()`, scaled. */
  seconds(n: number): string {
    return number(n * this.scale);
  }
}

const runbook = (alert: string) => `${RUNBOOK_BASE_URL}${alert}.md`;
const percent = (n: number) => `${number(n * 100)}%`;

function sloGroup(slo: Slo, t: Durations): RuleGroup {
  const budget = 1 - slo.objective;
  // Named for the window they stand for, at any scale.
  const records: RecordingRule[] = WINDOWS.map((w) => ({ record: `slo:sli_error:ratio_rate${w}`, expr: slo.errorRatio(t.of(w)), labels: { slo: slo.name } }));
  const series = (w: Window) => `slo:sli_error:ratio_rate${w}{slo="${slo.name}"}`;
  const alerts: AlertingRule[] = (["critical", "warning"] as const).map((severity) => {
    const pairs = BURNS.filter((b) => b.severity === severity);
    const expr = pairs
      .map((b) => [`(`, `  ${series(b.long)} > ${number(b.factor * budget)}`, `  and`, `  ${series(b.short)} > ${number(b.factor * budget)}`, `)`].join("\n"))
      .join("\nor\n");
    const windows = pairs.map((b) => `${b.long}/${b.short} at ${b.factor}x`).join(", ");
    return {
      alert: slo.alert,
      expr,
      labels: { severity },
      annotations: {
        summary: `${slo.name}: error budget burning ${severity === "critical" ? "fast" : "steadily"} in {{ $labels.namespace }}`,
        description: [
          `Objective: ${percent(slo.objective)} of ${slo.sli}, over 30 days.`,
          `Error ratio {{ $value | humanizePercentage }} over the long window, above ${windows} the budget's rate.`,
        ].join(" "),
        runbook_url: runbook(slo.alert),
      },
    };
  });
  return { name: `slo-${slo.name}`, rules: [...(slo.before ?? []), ...records, ...alerts] };
}

const alert = (a: Omit<AlertingRule, "annotations"> & { summary: string; description: string }): AlertingRule => ({
  alert: a.alert,
  expr: a.expr,
  ...(a.for ? { for: a.for } : {}),
  labels: a.labels,
  annotations: { summary: a.summary, description: a.description, runbook_url: runbook(a.alert) },
});

const deployments = `deployment=~"${DEPLOYMENTS.join("|")}"`;
const services = `service=~"${DEPLOYMENTS.join("|")}"`;
/** kube-state-metrics' series of our Deployments, their matchers on a line of their own. */
const kube = (metric: string) => `max by (namespace, deployment) (${metric}{\n  ${OUR_NAMESPACES}, ${deployments}\n})`;

/** Objectives that are a bound, not a ratio: alerted when the bound is passed. */
const bounds = (t: Durations): RuleGroup => ({
  name: "objective-bounds",
  rules: [
    alert({
      alert: "ScannerScanOverdue",
      expr: `time() - max by (namespace) (scanner_next_scan_timestamp_seconds{service="scanner-ingest"}) > ${t.seconds(600)}`,
      for: "5m",
      labels: { severity: "warning" },
      summary: "The scanner's schedule is stuck in {{ $labels.namespace }}",
      description: "The slot the scanner waits for is {{ $value | humanizeDuration }} past: a scan hangs or the schedule stopped. No new board is published.",
    }),
    alert({
      alert: "PaymentClaimsUnsettled",
      expr: `time() - min by (namespace, stage) (payments_oldest_unsettled_claim_timestamp_seconds{service="payments"}) > ${t.seconds(600)}`,
      for: "5m",
      labels: { severity: "warning" },
      summary: "A payment {{ $labels.stage }} for over 10 minutes in {{ $labels.namespace }}",
      description:
        "The oldest {{ $labels.stage }} claim began {{ $value | humanizeDuration }} ago; reconciliation ends claims after 60 s. claimed: paid, neither served nor released; pending: served before its block, its outcome not recorded.",
    }),
    alert({
      alert: "EventStreamBehind",
      expr: [`max by (namespace) (board_publication_seq{service="board"})`, `- on (namespace) group_right`, `event_feed_seq{service="gateway"}`, `> 0`].join("\n"),
      for: "3m",
      labels: { severity: "warning" },
      summary: "Gateway {{ $labels.pod }}'s event streams are behind the board in {{ $labels.namespace }}",
      description: "Its event feed is {{ $value }} publication(s) behind the board's for 3 minutes (it asks the board again every minute): its /api/board/events and MCP subscribers miss boards.",
    }),
  ],
});

const causes = (t: Durations): RuleGroup => ({
  name: "causes",
  rules: [
    alert({
      alert: "ServiceNoReadyReplica",
      expr: [
        `${kube("kube_deployment_spec_replicas")} > 0`,
        `and on (namespace, deployment)`,
        `${kube("kube_deployment_status_replicas_available")} < 1`,
      ].join("\n"),
      for: "2m",
      labels: { severity: "critical" },
      summary: "{{ $labels.deployment }} has no ready replica in {{ $labels.namespace }}",
      description: "kube-state-metrics counts no available replica of {{ $labels.deployment }} for 2 minutes: what it serves fails.",
    }),
    alert({
      alert: "ServiceNotScraped",
      expr: [
        `${kube("kube_deployment_status_replicas_available")} > 0`,
        `unless on (namespace, deployment)`,
        `label_replace(`,
        `  max by (namespace, service) (process_start_time_seconds{${services}}),`,
        `  "deployment", "$1", "service", "(.*)"`,
        `)`,
      ].join("\n"),
      for: "10m",
      labels: { severity: "warning" },
      summary: "{{ $labels.deployment }} runs in {{ $labels.namespace }} but Prometheus has none of its metrics",
      description: "Its pods are available but no series of theirs arrives: every objective and alert that reads them is blind.",
    }),
    alert({
      alert: "NatsDisconnected",
      expr: `max by (namespace, service, pod) (bus_connected) == 0`,
      for: "1m",
      labels: { severity: "warning" },
      summary: "{{ $labels.service }} pod {{ $labels.pod }} has lost NATS",
      description: "Its bus connection has been down for a minute (it reconnects by itself; it is not ready meanwhile, so it takes no traffic).",
    }),
    alert({
      alert: "NatsReconnectsFrequent",
      expr: `sum by (namespace, service, pod) (increase(bus_disconnects_total[${t.of("15m")}])) > 3`,
      for: "5m",
      labels: { severity: "warning" },
      summary: "{{ $labels.service }} pod {{ $labels.pod }} keeps losing NATS",
      description: "{{ $value | humanize }} disconnects in 15 minutes: requests in flight at each one fail (503, 504).",
    }),
    alert({
      alert: "JetStreamConsumerLagging",
      expr: [
        `max by (namespace, service, pod, stream) (jetstream_consumer_lag_messages{stream="${SNAPSHOT_STREAM}"}) > 1`,
        `or`,
        `max by (namespace, service, pod, stream) (jetstream_consumer_lag_messages{stream="${SERVED_READS_STREAM}"}) > 10000`,
      ].join("\n"),
      for: "10m",
      labels: { severity: "warning" },
      summary: "{{ $labels.service }} pod {{ $labels.pod }} is {{ $value }} messages behind stream {{ $labels.stream }}",
      description:
        "For 10 minutes. BOARD behind: that board replica serves an older board. READS behind: served-read counts (status, licences' use) lag; nothing is lost while the stream keeps the messages (a week).",
    }),
    alert({
      alert: "DatabasePoolSaturated",
      expr: [
        `max by (namespace, service, pod) (db_pool_waiting_clients) > 0`,
        `or`,
        `max by (namespace, service, pod) ((db_pool_connections - db_pool_idle_connections) / db_pool_max_connections) >= 0.9`,
      ].join("\n"),
      for: "5m",
      labels: { severity: "warning" },
      summary: "{{ $labels.service }} pod {{ $labels.pod }}'s database pool is saturated",
      description: "For 5 minutes its queries wait for a connection or nearly all are busy; past DATABASE_ACQUIRE_TIMEOUT_MS they fail (503).",
    }),
    alert({
      alert: "DatabaseTimeouts",
      expr: `sum by (namespace, service, kind) (increase(db_timeouts_total[${t.of("10m")}])) > 5`,
      for: "5m",
      labels: { severity: "warning" },
      summary: "{{ $labels.service }} database calls hit the {{ $labels.kind }} timeout in {{ $labels.namespace }}",
      description: "{{ $value | humanize }} in 10 minutes (statement: statement_timeout; query_read: no answer; acquire: no pooled connection; idle_in_transaction).",
    }),
    alert({
      alert: "PaymentRailDown",
      expr: `max by (namespace, rail) (payments_rail_up{service="payments"}) == 0`,
      for: "5m",
      labels: { severity: "critical" },
      summary: "Payment rail {{ $labels.rail }} is down in {{ $labels.namespace }}",
      description: "Configured but live on no payments replica for 5 minutes: it is left out of every 402, so no one can pay with it.",
    }),
    alert({
      alert: "PaymentFacilitatorBalanceLow",
      expr: `max by (namespace, rail) (payments_rail_warning{service="payments", warning="facilitator_balance_low"}) == 1`,
      for: "10m",
      labels: { severity: "warning" },
      summary: "The account paying {{ $labels.rail }}'s settlement fees is running low in {{ $labels.namespace }}",
      description:
        "Its balance is below BASE_FACILITATOR_LOW_BALANCE_ETH (payments_facilitator_balance_wei). Once it cannot pay for one batch, Base and MPP are taken down (PaymentRailDown).",
    }),
    alert({
      alert: "PaymentSettlementsFailing",
      expr: [
        `sum by (namespace, rail) (rate(payments_settlements_total{service="payments", outcome="failed"}[${t.of("10m")}]))`,
        `/`,
        `sum by (namespace, rail) (rate(payments_settlements_total{service="payments"}[${t.of("10m")}]))`,
        `> 0.05`,
      ].join("\n"),
      for: "5m",
      labels: { severity: "critical" },
      summary: "Settlements on rail {{ $labels.rail }} are failing in {{ $labels.namespace }}",
      description:
        "{{ $value | humanizePercentage }} of settlements failed (outcome unknown or not sent) over 10 minutes: their reads are not served, their claims wait for reconciliation. A rail once live is not taken down by an outage: this is how one shows.",
    }),
    alert({
      alert: "PaymentsReadsLost",
      expr: `sum by (namespace, rail) (increase(payments_losses_total{service="payments"}[${t.of("1h")}])) > 0`,
      labels: { severity: "warning" },
      summary: "Reads served before their block went unpaid on {{ $labels.rail }} in {{ $labels.namespace }}",
      description: "{{ $value | humanize }} reads answered before their block were lost in the last hour (their transfer failed); the payers are in arrears (npm run arrears).",
    }),
    alert({
      alert: "SigningKeyNearRotation",
      expr: `min by (namespace, service, key) (signing_key_rotation_due_timestamp_seconds) - time() < ${t.seconds(86400)}`,
      labels: { severity: "info" },
      summary: "The {{ $labels.key }} signing key of {{ $labels.service }} rotates within a day",
      description: "Its successor takes over in {{ $value | humanizeDuration }}; it is published ahead (JWKS, did.json). Rotation is automatic: this says when to look.",
    }),
    alert({
      alert: "SigningKeyRotationStalled",
      expr: [
        `time() - min by (namespace, service, key) (signing_key_successor_due_timestamp_seconds) > ${t.seconds(600)}`,
        `and on (namespace, service, key)`,
        `max by (namespace, service, key) (signing_key_successor_published) == 0`,
      ].join("\n"),
      for: "5m",
      labels: { severity: "warning" },
      summary: "The {{ $labels.key }} signing key of {{ $labels.service }} was not rotated",
      description: "Its successor should have been published {{ $value | humanizeDuration }} ago and is not: the key will sign past its active life.",
    }),
    alert({
      alert: "DevelopmentPaymentsInProduction",
      expr: `max by (namespace, pod) (payments_mode{service="payments", mode="development"}) == 1`,
      for: "1m",
      labels: { severity: "critical" },
      summary: "Payments pod {{ $labels.pod }} runs development payments in {{ $labels.namespace }}",
      description: "PAYMENTS_MODE=development: no real money. Readers are told so and paid reads are worth nothing.",
    }),
  ],
});

export function ruleGroups(opts: RuleOptions = {}): RuleGroup[] {
  const t = new Durations(opts.timeScale ?? 1);
  // An alert's `for:` is waited on Prometheus's clock: scaled with it.
  const scaleFor = (g: RuleGroup): RuleGroup => ({ ...g, rules: g.rules.map((r) => ("alert" in r && r.for ? { ...r, for: t.of(r.for) } : r)) });
  return [...SLOS.map((slo) => sloGroup(slo, t)), bounds(t), causes(t)].map(scaleFor);
}

const HEADER = " Generated by deploy/prometheus/rules.ts (npx tsx deploy/prometheus/rules.ts): edit that file, not this one.\n docs/operations.md explains each objective and alert; docs/runbooks/<alert>.md says what to do.";

function yamlOf(content: unknown, header: string): string {
  const doc = new Document(content);
  doc.commentBefore = header;
  return doc.toString({ lineWidth: 120, minContentWidth: 40, blockQuote: "literal" });
}

/** deploy/prometheus/rules.yml as it must be (with `opts`, the same rules rendered otherwise: a test's time scale). */
export function rulesYaml(opts: RuleOptions = {}): string {
  return yamlOf({ groups: ruleGroups(opts) }, HEADER);
}

/** deploy/k8s/base/monitoring/prometheusrule.yaml as it must be: the same groups. */
export function prometheusRuleYaml(): string {
  return yamlOf(
    {
      apiVersion: "monitoring.coreos.com/v1",
      kind: "PrometheusRule",
      metadata: { name: "scored-market-board", labels: { "app.kubernetes.io/name": "scored-market-board", "app.kubernetes.io/component": "monitoring" } },
      spec: { groups: ruleGroups() },
    },
    `${HEADER}\n Add the label your Prometheus's ruleSelector selects (kube-prometheus-stack: release: <its release>).`,
  );
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  writeFileSync(RULES_FILE, rulesYaml());
  writeFileSync(PROMETHEUS_RULE_FILE, prometheusRuleYaml());
  console.log(`wrote ${path.relative(root, RULES_FILE)} and ${path.relative(root, PROMETHEUS_RULE_FILE)}`);
}
