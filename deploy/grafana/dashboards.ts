// The Grafana dashboards of docs/operations.md ("Dashboards"): `npx tsx deploy/grafana/dashboards.ts`
// (or `npm run dashboards`) writes deploy/grafana/dashboards/<name>.json and, for Grafana's
// dashboard sidecar, one ConfigMap per dashboard (label grafana_dashboard: "1") under
// deploy/k8s/base/monitoring/. Edit this file, never the outputs: test/deploy/grafana-dashboards.test.ts
// fails when they differ from what this file makes, and test/integration/dashboards-metrics.test.ts
// fails when a query names a metric or a label that no service of a running stack exports.
//
// Built with @grafana/grafana-foundation-sdk (typed builders for the dashboard, its panels and
// Prometheus queries). One dashboard per service (rate, errors, latency, saturation, then what
// is the service's own) and one for the business (402s offered, paid reads and settlements by
// rail, money, free tier, licences).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type * as cog from "@grafana/grafana-foundation-sdk/cog";
import {
  DashboardBuilder,
  DashboardCursorSync,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  RowBuilder,
  VariableRefresh,
  VariableSort,
  type Dashboard,
  type Panel,
} from "@grafana/grafana-foundation-sdk/dashboard";
import { BigValueGraphMode, LegendDisplayMode, LegendPlacement, ReduceDataOptionsBuilder, TooltipDisplayMode, VizLegendOptionsBuilder, VizTooltipOptionsBuilder } from "@grafana/grafana-foundation-sdk/common";
import { DataqueryBuilder } from "@grafana/grafana-foundation-sdk/prometheus";
import { PanelBuilder as StatPanelBuilder } from "@grafana/grafana-foundation-sdk/stat";
import { PanelBuilder as TimeseriesPanelBuilder } from "@grafana/grafana-foundation-sdk/timeseries";
import { Document } from "yaml";

const root = fileURLToPath(new URL("../..", import.meta.url));
export const DASHBOARD_DIR = path.join(root, "deploy/grafana/dashboards");
export const CONFIGMAP_DIR = path.join(root, "deploy/k8s/base/monitoring");
/** The ConfigMaps' files are named after this prefix (the PrometheusRule beside them is not). */
export const CONFIGMAP_PREFIX = "grafana-dashboard-";

export const SERVICES = ["gateway", "board", "identity", "metering", "payments", "scanner-ingest"] as const;
export type Service = (typeof SERVICES)[number];

/**
 * Labels a query may match on that the services do not export: Prometheus adds them when it
 * scrapes a pod (kubernetes_sd relabelling, as kube-prometheus-stack's PodMonitor/ServiceMonitor
 * do). Every other label a query names must be on the service's /metrics.
 */
export const SCRAPE_LABELS = ["namespace", "pod"] as const;

/** The Prometheus data source, chosen on the dashboard. */
const DS = { type: "prometheus", uid: "${datasource}" };
const RATE = "[$__rate_interval]";
/** The namespace(s) picked on the dashboard: board-dev, board-prod... */
const NS = 'namespace=~"$namespace"';

/** `metric{service="<service>", namespace=~"$namespace", ...extra}` */
const sel = (metric: string, service: string, ...extra: string[]) => `${metric}{${[`service="${service}"`, NS, ...extra].join(", ")}}`;
const rate = (selector: string) => `rate(${selector}${RATE})`;
const quantile = (phi: number, bucketSelector: string, by: string[] = []) => `histogram_quantile(${phi}, sum by (${["le", ...by].join(", ")}) (${rate(bucketSelector)}))`;

interface Query {
  expr: string;
  legend?: string;
}
interface PanelSpec {
  title: string;
  description: string;
  unit: string;
  queries: Query[];
  /** stat: one number over the dashboard's range; timeseries otherwise. */
  stat?: boolean;
  /** Grid columns of 24. */
  span?: number;
  min?: number;
}
interface RowSpec {
  title: string;
  panels: PanelSpec[];
}
export interface DashboardSpec {
  /** File and ConfigMap name: deploy/grafana/dashboards/<name>.json. */
  name: string;
  uid: string;
  title: string;
  description: string;
  tags: string[];
  /** A metric every pod of the dashboard exports: the namespace variable's values come from it. */
  namespacesFrom: string;
  rows: RowSpec[];
}

const q = (expr: string, legend?: string): Query => ({ expr, ...(legend !== undefined ? { legend } : {}) });
const ts = (title: string, unit: string, description: string, ...queries: Query[]): PanelSpec => ({ title, unit, description, queries });

/** Rate, errors and latency of the bus endpoints a service serves (service-kit's bus_handled_seconds). */
function busRed(service: Service): RowSpec[] {
  const handled = (suffix: string, ...extra: string[]) => sel(`bus_handled_seconds_${suffix}`, service, ...extra);
  return [
    {
      title: "Rate",
      panels: [
        ts("Bus requests handled, by endpoint", "reqps", "Requests this service answered on NATS (every outcome), per second.", q(`sum by (subject) (${rate(handled("count"))})`, "{{subject}}")),
        // Identity asks no other service: its bus_round_trip_seconds never has a series.
        ...(service === "identity"
          ? []
          : [ts("Bus requests it sent, by endpoint and outcome", "reqps", "Round trips this service made to other services (metering: to the other replicas of its burst limiter).", q(`sum by (subject, outcome) (${rate(sel("bus_round_trip_seconds_count", service))})`, "{{subject}} {{outcome}}"))]),
      ],
    },
    {
      title: "Errors",
      panels: [
        ts(
          "Bus requests answered with an error, by endpoint and reason",
          "reqps",
          "Outcome other than ok: a 4xx reason is the caller's, internal_error and service_unavailable are ours.",
          q(`sum by (subject, outcome) (${rate(handled("count", 'outcome!="ok"'))})`, "{{subject}} {{outcome}}"),
        ),
        ts("Errors by reason code", "reqps", "errors_total: every error reply or error body, by its stable reason code.", q(`sum by (code) (${rate(sel("errors_total", service))})`, "{{code}}")),
      ],
    },
    {
      title: "Latency",
      panels: [
        ts(
          "Bus handling time",
          "s",
          "Quantiles of the time to answer a bus request, over every endpoint.",
          q(quantile(0.5, handled("bucket")), "p50"),
          q(quantile(0.95, handled("bucket")), "p95"),
          q(quantile(0.99, handled("bucket")), "p99"),
        ),
        ts("Bus handling time p95, by endpoint", "s", "95th percentile per endpoint.", q(quantile(0.95, handled("bucket"), ["subject"]), "{{subject}}")),
      ],
    },
  ];
}

/** CPU, memory, event loop, NATS connection: every service (prom-client's defaults and service-kit's bus gauges). */
function processSaturation(service: Service): PanelSpec[] {
  return [
    ts("CPU, by pod", "percentunit", "Share of one core used by each pod's Node process.", q(`sum by (pod) (${rate(sel("process_cpu_seconds_total", service))})`, "{{pod}}")),
    ts("Resident memory, by pod", "bytes", "RSS of each pod's process (the container's limit is in its Deployment).", q(`max by (pod) (${sel("process_resident_memory_bytes", service)})`, "{{pod}}")),
    ts("Event loop lag p99, by pod", "s", "A loaded event loop delays every request the pod holds.", q(`max by (pod) (${sel("nodejs_eventloop_lag_p99_seconds", service)})`, "{{pod}}")),
    ts(
      "NATS connection, by pod",
      "short",
      "1 connected, 0 lost (the pod is not ready meanwhile); and disconnects per second.",
      q(`min by (pod) (${sel("bus_connected", service)})`, "{{pod}} connected"),
      q(`sum by (pod) (${rate(sel("bus_disconnects_total", service))})`, "{{pod}} disconnects/s"),
    ),
  ];
}

/** The database pool of a service with a database (service-kit's db_pool_* and db_timeouts_total). */
function databaseSaturation(service: Service): PanelSpec[] {
  return [
    ts(
      "Database pool in use, by pod",
      "percentunit",
      "Busy connections over the pool's maximum; DatabasePoolSaturated fires at 90% for 5 minutes.",
      q(`max by (pod) ((${sel("db_pool_connections", service)} - ${sel("db_pool_idle_connections", service)}) / ${sel("db_pool_max_connections", service)})`, "{{pod}}"),
    ),
    ts("Queries waiting for a connection, by pod", "short", "Past DATABASE_ACQUIRE_TIMEOUT_MS they fail with 503.", q(`max by (pod) (${sel("db_pool_waiting_clients", service)})`, "{{pod}}")),
    ts("Database timeouts, by kind", "ops", "statement, idle_in_transaction, query_read, acquire.", q(`sum by (kind) (${rate(sel("db_timeouts_total", service))})`, "{{kind}}")),
  ];
}

const consumerLag = (service: Service): PanelSpec =>
  ts("JetStream consumer lag, by stream and pod", "short", "Messages of the stream this pod has not processed yet.", q(`max by (stream, pod) (${sel("jetstream_consumer_lag_messages", service)})`, "{{stream}} {{pod}}"));

const keyRotation = (service: Service): PanelSpec =>
  ts(
    "Signing key: time to rotation",
    "s",
    "Until the signing key's successor takes over; SigningKeyNearRotation below a day. A successor is published ahead (1 = published).",
    q(`min by (key) (${sel("signing_key_rotation_due_timestamp_seconds", service)}) - time()`, "{{key}} rotates in"),
    q(`max by (key) (${sel("signing_key_successor_published", service)})`, "{{key}} successor published"),
  );

/** What each service adds to the four golden signals. */
const OWN: Record<Service, RowSpec> = {
  gateway: {
    title: "Streams and sessions",
    panels: [
      ts("Event streams open", "short", "/api/board/events subscribers held by each pod.", q(`sum by (pod) (${sel("event_streams_open", "gateway")})`, "{{pod}}")),
      ts("Event streams dropped, by reason", "ops", "Streams the gateway ended (slow consumer, capacity, stopping).", q(`sum by (reason) (${rate(sel("event_streams_dropped_total", "gateway"))})`, "{{reason}}")),
      ts(
        "MCP sessions",
        "short",
        "Sessions open and their server-sent event streams, per pod; sessions opened per second.",
        q(`sum by (pod) (${sel("mcp_sessions_open", "gateway")})`, "{{pod}} open"),
        q(`sum by (pod) (${sel("mcp_session_streams_open", "gateway")})`, "{{pod}} streams"),
        q(`sum (${rate(sel("mcp_sessions_opened_total", "gateway"))})`, "opened/s"),
      ),
      ts("MCP sessions refused, by reason", "ops", "streams_at_capacity counts against the MCP sessions objective.", q(`sum by (reason) (${rate(sel("mcp_sessions_refused_total", "gateway"))})`, "{{reason}}")),
      ts("Event feed seq, by pod", "short", "Commitment seq of the newest board event each pod's streams hold (EventStreamBehind compares it with the board's).", q(`max by (pod) (${sel("event_feed_seq", "gateway")})`, "{{pod}}")),
    ],
  },
  board: {
    title: "Board",
    panels: [
      ts("Board age, by pod", "s", "Age of the board each replica serves; fresh means at most 600 s in market hours.", q(`max by (pod) (${sel("board_snapshot_age_seconds", "board")})`, "{{pod}}")),
      ts("Market open", "short", "1 in the NYSE regular session (holidays and early closes included).", q(`max (${sel("board_market_open", "board")})`, "open")),
      ts("Publication seq, by pod", "short", "Commitment seq of the board each replica serves.", q(`max by (pod) (${sel("board_publication_seq", "board")})`, "{{pod}}")),
      consumerLag("board"),
    ],
  },
  identity: {
    title: "Credentials",
    panels: [
      keyRotation("identity"),
      ts(
        "Credentials issued, by endpoint",
        "ops",
        "Free keys, licences, tokens and sign-ins answered ok.",
        q(`sum by (subject) (${rate(sel("bus_handled_seconds_count", "identity", 'subject=~"identity\\\\.v1\\\\.(free_key|license_issue|token|sign_in_verify)"', 'outcome="ok"'))})`, "{{subject}}"),
      ),
    ],
  },
  metering: {
    title: "Burst limiter and served reads",
    panels: [
      ts("Burst takes, by path", "ops", "Burst checks, by the path they took through the limiter's cluster.", q(`sum by (path) (${rate(sel("metering_burst_takes_total", "metering"))})`, "{{path}}")),
      ts("Burst batches", "ops", "Batches of burst checks between metering replicas.", q(`sum (${rate(sel("metering_burst_batches_total", "metering"))})`, "batches/s")),
      ts("Burst cluster members, by pod", "short", "Replicas each pod counts in the limiter's cluster.", q(`max by (pod) (${sel("metering_burst_members", "metering")})`, "{{pod}}")),
      consumerLag("metering"),
    ],
  },
  payments: {
    title: "Rails and settlement",
    panels: [
      ts("Rails up", "short", "1 live (offered), 0 down; PaymentRailDown after 5 minutes.", q(`max by (rail) (${sel("payments_rail_up", "payments")})`, "{{rail}}")),
      ts("Rail warnings", "short", "facilitator_balance_low, multicall3_missing.", q(`max by (rail, warning) (${sel("payments_rail_warning", "payments")})`, "{{rail}} {{warning}}")),
      ts("Settlements, by rail and outcome", "ops", "settled, refused (the chain, facilitator or ledger said no), failed (unknown, left to reconciliation).", q(`sum by (rail, outcome) (${rate(sel("payments_settlements_total", "payments"))})`, "{{rail}} {{outcome}}")),
      ts(
        "Settlement finality p95, by rail",
        "s",
        "From a paid read answered before its block to its transfer's outcome; the objective is 30 s.",
        q(quantile(0.95, sel("payments_settlement_finality_seconds_bucket", "payments"), ["rail"]), "{{rail}}"),
      ),
      ts("Unsettled claims, by stage", "short", "claimed: paid, neither served nor released; pending: served before its block, not final.", q(`max by (stage) (${sel("payments_unsettled_claims", "payments")})`, "{{stage}}")),
      ts(
        "Oldest unsettled claim, by stage",
        "s",
        "Age of the oldest claim still claimed or pending; PaymentClaimsUnsettled past 10 minutes (no series when there is none).",
        q(`time() - min by (stage) (${sel("payments_oldest_unsettled_claim_timestamp_seconds", "payments")})`, "{{stage}}"),
      ),
      ts("Settlement batches, by outcome", "ops", "Base batches: mined, reverted, refused, unknown, not_sent.", q(`sum by (outcome) (${rate(sel("payments_settlement_batches_total", "payments"))})`, "{{outcome}}")),
      ts("Chain requests, by method", "reqps", "JSON-RPC calls to the Base node.", q(`sum by (method) (${rate(sel("payments_chain_requests_total", "payments"))})`, "{{method}}")),
      ts("Facilitator balance", "short", "The settling account's balance in ETH (wei / 1e18).", q(`max by (network) (${sel("payments_facilitator_balance_wei", "payments")}) / 1e18`, "{{network}}")),
      keyRotation("payments"),
    ],
  },
  "scanner-ingest": {
    title: "Schedule",
    panels: [
      ts("Until the next scan", "s", "The slot the schedule waits for, from now; ScannerScanOverdue when 10 minutes past.", q(`min (${sel("scanner_next_scan_timestamp_seconds", "scanner-ingest")}) - time()`, "next scan in")),
      ts("Since the last board published", "s", "Time since this scanner last put a board on the stream.", q(`time() - max (${sel("scanner_last_publish_timestamp_seconds", "scanner-ingest")})`, "since last publish")),
      ts("Provider intraday", "short", "1: the provider gives the day in progress; 0: end-of-day data (no intraday boards).", q(`max (${sel("scanner_provider_intraday", "scanner-ingest")})`, "intraday")),
    ],
  },
};

/** The scanner serves no bus endpoint: its rate is its scans, its latency the lag from a slot to its board. */
function scannerRed(): RowSpec[] {
  const s = "scanner-ingest";
  return [
    { title: "Rate", panels: [ts("Scans, by outcome", "ops", "published, duplicate (already on the stream), failed, skipped (intraday slot, end-of-day provider).", q(`sum by (outcome) (${rate(sel("scanner_scans_total", s))})`, "{{outcome}}"))] },
    {
      title: "Errors",
      panels: [
        ts("Failed scans", "ops", "Scans that did not reach the stream; they count as missed in the scanner cadence objective.", q(`sum (${rate(sel("scanner_scans_total", s, 'outcome="failed"'))})`, "failed")),
        ts("Errors by reason code", "ops", "errors_total of the scanner.", q(`sum by (code) (${rate(sel("errors_total", s))})`, "{{code}}")),
      ],
    },
    {
      title: "Latency",
      panels: [
        ts(
          "From slot to board on the stream",
          "s",
          "Quantiles of scanner_publish_lag_seconds; the objective is 120 s.",
          q(quantile(0.5, sel("scanner_publish_lag_seconds_bucket", s)), "p50"),
          q(quantile(0.95, sel("scanner_publish_lag_seconds_bucket", s)), "p95"),
        ),
      ],
    },
  ];
}

/** The gateway's HTTP: every request by route template, method and status class. */
function gatewayRed(): RowSpec[] {
  const http = (suffix: string, ...extra: string[]) => sel(`http_request_duration_seconds_${suffix}`, "gateway", ...extra);
  return [
    {
      title: "Rate",
      panels: [
        ts("Requests, by route", "reqps", "HTTP requests answered (unmatched: no route of the catalogue).", q(`sum by (route) (${rate(http("count"))})`, "{{route}}")),
        ts("Requests, by status class", "reqps", "2xx, 3xx, 4xx (402 offers included), 5xx, aborted (the client left).", q(`sum by (status_class) (${rate(http("count"))})`, "{{status_class}}")),
      ],
    },
    {
      title: "Errors",
      panels: [
        ts(
          "5xx ratio",
          "percentunit",
          "Share of answered requests that were 5xx; the paid reads objective allows 0.1%.",
          q(`sum (${rate(http("count", 'status_class="5xx"'))}) / sum (${rate(http("count", 'status_class!="aborted"'))})`, "5xx ratio"),
        ),
        ts("Errors by reason code", "reqps", "The code of each error body sent (402 offers are not error bodies).", q(`sum by (code) (${rate(sel("errors_total", "gateway"))})`, "{{code}}")),
        ts("Bus requests that failed, by endpoint and reason", "reqps", "The gateway's round trips to the services that did not end ok.", q(`sum by (subject, outcome) (${rate(sel("bus_round_trip_seconds_count", "gateway", 'outcome!="ok"'))})`, "{{subject}} {{outcome}}")),
      ],
    },
    {
      title: "Latency",
      panels: [
        ts(
          "Successful requests",
          "s",
          "Quantiles of 2xx answers over every route (a paid read that waits for its block included).",
          q(quantile(0.5, http("bucket", 'status_class="2xx"')), "p50"),
          q(quantile(0.95, http("bucket", 'status_class="2xx"')), "p95"),
          q(quantile(0.99, http("bucket", 'status_class="2xx"')), "p99"),
        ),
        ts("p95 by route", "s", "2xx answers, per route template.", q(quantile(0.95, http("bucket", 'status_class="2xx"'), ["route"]), "{{route}}")),
        ts("Bus round trips p95, by endpoint", "s", "The gateway's requests to the services.", q(quantile(0.95, sel("bus_round_trip_seconds_bucket", "gateway"), ["subject"]), "{{subject}}")),
      ],
    },
  ];
}

const DATABASE: readonly Service[] = ["board", "identity", "metering", "payments"];

const SERVICE_TITLES: Record<Service, string> = {
  gateway: "Gateway: HTTP, event streams, MCP",
  board: "Board: reads, freshness",
  identity: "Identity: keys, licences, tokens",
  metering: "Metering: caps, burst limiter, served reads",
  payments: "Payments: rails, claims, settlement",
  "scanner-ingest": "Scanner: schedule and publication",
};

function serviceDashboard(service: Service): DashboardSpec {
  const red = service === "gateway" ? gatewayRed() : service === "scanner-ingest" ? scannerRed() : busRed(service);
  const saturation: RowSpec = { title: "Saturation", panels: [...processSaturation(service), ...(DATABASE.includes(service) ? databaseSaturation(service) : [])] };
  return {
    name: service,
    uid: `smb-${service}`,
    title: `Scored Market Board / ${SERVICE_TITLES[service]}`,
    description: `Rate, errors, latency and saturation of ${service}, from the metrics it exports at /metrics (generated by deploy/grafana/dashboards.ts).`,
    tags: ["scored-market-board", service],
    namespacesFrom: `process_start_time_seconds{service="${service}"}`,
    rows: [...red, saturation, OWN[service]],
  };
}

const USDC = 1e6;
const stat = (title: string, unit: string, description: string, expr: string): PanelSpec => ({ title, unit, description, queries: [q(expr)], stat: true, span: 6 });
/** The tiers of gateway_reads_served_total, as the business reads them. */
const FREE_TIERS = 'tier=~"anonymous|free_key|wallet"';
const LICENSED_TIERS = 'tier=~"scanner_license|live_license|bearer"';

function businessDashboard(): DashboardSpec {
  const requirements = (...extra: string[]) => sel("bus_handled_seconds_count", "payments", 'subject="payments.v1.requirements"', 'outcome="ok"', ...extra);
  const settled = sel("payments_settlements_total", "payments", 'outcome="settled"');
  const revenue = sel("payments_settled_base_units_total", "payments");
  const lost = sel("payments_lost_base_units_total", "payments");
  const served = (...extra: string[]) => sel("gateway_reads_served_total", "gateway", ...extra);
  return {
    name: "business",
    uid: "smb-business",
    title: "Scored Market Board / Business",
    description:
      "402s offered, paid reads and settlements by rail, money, free tier and licences (generated by deploy/grafana/dashboards.ts).",
    tags: ["scored-market-board", "business"],
    namespacesFrom: 'process_start_time_seconds{service="payments"}',
    rows: [
      {
        title: "Over the range",
        panels: [
          stat("402s offered", "short", "402 answers payments built for a paid read (HTTP and MCP), over the dashboard's range.", `sum (increase(${requirements()}[$__range]))`),
          stat("Paid reads settled", "short", "Payments settled on any rail, over the range.", `sum (increase(${settled}[$__range]))`),
          stat("Revenue (USDC)", "currencyUSD", "Payments settled, in USDC, less what was lost (reads served before their block whose transfer then failed).", `(sum (increase(${revenue}[$__range])) - (sum (increase(${lost}[$__range])) or vector(0))) / ${USDC}`),
          stat("Lost (USDC)", "currencyUSD", "Reads served before their block whose transfer then failed, never paid.", `sum (increase(${lost}[$__range])) / ${USDC}`),
          stat("Free-tier reads", "short", "Reads served without payment or licence: anonymous, free key and wallet sign-in.", `sum (increase(${served(FREE_TIERS)}[$__range]))`),
          stat("Licensed reads", "short", "Reads served to a licence (scanner or live feed) or its bearer token.", `sum (increase(${served(LICENSED_TIERS)}[$__range]))`),
        ],
      },
      {
        title: "402s and paid reads",
        panels: [
          ts("402s offered", "ops", "Payment requirements built (a 402 with the rails' offers).", q(`sum (${rate(requirements())})`, "402s/s")),
          ts("Paid reads settled, by rail", "ops", "Payments settled, per rail (base, solana, algorand, circle, mpp...).", q(`sum by (rail) (${rate(settled)})`, "{{rail}}")),
          ts(
            "Settled per 402 offered",
            "percentunit",
            "Paid reads settled over 402s offered: how many offers turn into a paid read.",
            q(`sum (${rate(settled)}) / sum (${rate(requirements())})`, "settled / offered"),
          ),
          ts("Paid reads answered before their block, by rail", "ops", "Reads served once their transfer was broadcast, before it was final.", q(`sum by (rail) (${rate(sel("payments_answered_before_block_total", "payments"))})`, "{{rail}}")),
        ],
      },
      {
        title: "Settlements by rail",
        panels: [
          ts("Settlements, by rail and outcome", "ops", "settled, refused, failed.", q(`sum by (rail, outcome) (${rate(sel("payments_settlements_total", "payments"))})`, "{{rail}} {{outcome}}")),
          ts("Settlement failures, by rail and reason", "ops", "Refusals and failures with their reason code.", q(`sum by (rail, reason) (${rate(sel("payments_settlements_total", "payments", 'outcome!="settled"'))})`, "{{rail}} {{reason}}")),
          ts("Reads lost, by rail and reason", "ops", "Reads served before their block whose transfer failed.", q(`sum by (rail, reason) (${rate(sel("payments_losses_total", "payments"))})`, "{{rail}} {{reason}}")),
        ],
      },
      {
        title: "Money (USDC)",
        panels: [
          ts("Revenue per hour, by rail", "currencyUSD", "Payments settled in the last hour, in USDC, per rail.", q(`sum by (rail) (increase(${revenue}[1h])) / ${USDC}`, "{{rail}}")),
          ts(
            "Exposure",
            "currencyUSD",
            "Served before their block and not final yet; owed by payers whose transfer failed.",
            q(`max (${sel("payments_unsettled_served_base_units", "payments")}) / ${USDC}`, "unsettled, served"),
            q(`max (${sel("payments_owed_base_units", "payments")}) / ${USDC}`, "owed"),
          ),
          ts("Payers owing", "short", "Payers whose payments are refused until their arrears are cleared (npm run arrears).", q(`max (${sel("payments_payers_owing", "payments")})`, "payers")),
        ],
      },
      {
        title: "Free tier and licences",
        panels: [
          ts("Reads served, by tier", "ops", "Every read served, by the tier it was served under (x402 is a paid read).", q(`sum by (tier) (${rate(served())})`, "{{tier}}")),
          ts("Free-tier reads, by route", "ops", "Anonymous, free key and wallet reads per route.", q(`sum by (route) (${rate(served(FREE_TIERS))})`, "{{route}}")),
          ts("Licensed reads, by route", "ops", "Licence and bearer reads per route.", q(`sum by (route) (${rate(served(LICENSED_TIERS))})`, "{{route}}")),
          ts(
            "Free keys issued",
            "ops",
            "identity.v1.free_key answered ok (POST /api/key).",
            q(`sum (${rate(sel("bus_handled_seconds_count", "identity", 'subject="identity.v1.free_key"', 'outcome="ok"'))})`, "free keys/s"),
          ),
          ts(
            "Free tier refusals",
            "ops",
            "Reads refused at the daily cap (25 a day per free key or wallet) and by a burst limit.",
            q(`sum by (code) (${rate(sel("errors_total", "gateway", 'code=~"daily_cap_reached|burst_limited"'))})`, "{{code}}"),
          ),
          ts(
            "Metering checks",
            "ops",
            "consume_many: the burst and daily checks of every metered read (free, licensed, anonymous); refund: free reads counted and not served.",
            q(`sum by (subject) (${rate(sel("bus_handled_seconds_count", "metering", 'subject=~"metering\\\\.v1\\\\.(consume_many|refund)"'))})`, "{{subject}}"),
          ),
          ts(
            "Licences and tokens",
            "ops",
            "Licences issued and bearer tokens minted from licences (identity endpoints answered ok).",
            q(`sum by (subject) (${rate(sel("bus_handled_seconds_count", "identity", 'subject=~"identity\\\\.v1\\\\.(license_issue|token)"', 'outcome="ok"'))})`, "{{subject}}"),
          ),
          ts(
            "Licence refusals",
            "ops",
            "Reads refused for a licence unknown, lapsed or revoked.",
            q(`sum by (code) (${rate(sel("errors_total", "gateway", 'code=~"license_unknown|license_lapsed|license_revoked"'))})`, "{{code}}"),
          ),
        ],
      },
    ],
  };
}

export function dashboardSpecs(): DashboardSpec[] {
  return [...SERVICES.map(serviceDashboard), businessDashboard()];
}

function panelBuilder(p: PanelSpec, id: number): cog.Builder<Panel> {
  const targets = p.queries.map((query, i) => {
    const b = new DataqueryBuilder()
      .datasource(DS)
      .refId(String.fromCharCode(65 + i))
      .expr(query.expr);
    if (query.legend !== undefined) b.legendFormat(query.legend);
    if (p.stat) b.instant();
    else b.range();
    return b;
  });
  if (p.stat) {
    // One instant value over the dashboard's range: no sparkline, the last (only) value shown.
    const b = new StatPanelBuilder()
      .id(id)
      .title(p.title)
      .description(p.description)
      .datasource(DS)
      .unit(p.unit)
      .height(5)
      .span(p.span ?? 6)
      .graphMode(BigValueGraphMode.None)
      .reduceOptions(new ReduceDataOptionsBuilder().calcs(["lastNotNull"]).values(false));
    for (const t of targets) b.withTarget(t);
    return b;
  }
  const b = new TimeseriesPanelBuilder()
    .id(id)
    .title(p.title)
    .description(p.description)
    .datasource(DS)
    .unit(p.unit)
    .height(8)
    .span(p.span ?? 12)
    // The legend names each series (its legendFormat); the tooltip shows them all at the cursor.
    .legend(new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.List).placement(LegendPlacement.Bottom))
    .tooltip(new VizTooltipOptionsBuilder().mode(TooltipDisplayMode.Multi));
  if (p.min !== undefined) b.min(p.min);
  for (const t of targets) b.withTarget(t);
  return b;
}

/** The dashboard model Grafana imports. */
export function buildDashboard(spec: DashboardSpec): Dashboard {
  const b = new DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags(spec.tags)
    .editable()
    .tooltip(DashboardCursorSync.Crosshair)
    .refresh("1m")
    .timezone("browser")
    .withVariable(new DatasourceVariableBuilder("datasource").label("Data source").type("prometheus"))
    .withVariable(
      new QueryVariableBuilder("namespace")
        .label("Namespace")
        .datasource(DS)
        .query(`label_values(${spec.namespacesFrom}, namespace)`)
        .definition(`label_values(${spec.namespacesFrom}, namespace)`)
        .refresh(VariableRefresh.OnTimeRangeChanged)
        .sort(VariableSort.AlphabeticalAsc)
        .multi(true)
        .includeAll(true)
        .allValue(".+"),
    );
  let id = 1;
  for (const row of spec.rows) {
    b.withRow(new RowBuilder(row.title).id(id++));
    for (const p of row.panels) b.withPanel(panelBuilder(p, id++));
  }
  return b.build();
}

/** Every PromQL expression of a dashboard's panels, with the panel's title. */
export function queriesOf(dashboard: Dashboard): { panel: string; expr: string }[] {
  return (dashboard.panels ?? []).flatMap((p) => {
    if (p.type === "row") return [];
    const panel = p as Panel;
    return (panel.targets ?? []).map((t) => ({ panel: panel.title ?? "", expr: String((t as { expr?: unknown }).expr ?? "") }));
  });
}

export const dashboardFile = (name: string) => path.join(DASHBOARD_DIR, `${name}.json`);
export const configMapFile = (name: string) => path.join(CONFIGMAP_DIR, `${CONFIGMAP_PREFIX}${name}.yaml`);
export const configMapName = (name: string) => `${CONFIGMAP_PREFIX}${name}`;

/** deploy/grafana/dashboards/<name>.json as it must be. */
export function dashboardJson(spec: DashboardSpec): string {
  return `${JSON.stringify(buildDashboard(spec), null, 2)}\n`;
}

/** deploy/k8s/base/monitoring/grafana-dashboard-<name>.yaml as it must be: the same JSON, for the sidecar. */
export function configMapYaml(spec: DashboardSpec): string {
  const doc = new Document({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: configMapName(spec.name),
      labels: { grafana_dashboard: "1", "app.kubernetes.io/name": "scored-market-board", "app.kubernetes.io/component": "monitoring" },
      // kube-prometheus-stack's sidecar puts it in this folder when folderAnnotation is grafana_folder.
      annotations: { grafana_folder: "Scored Market Board" },
    },
    data: { [`${spec.name}.json`]: dashboardJson(spec) },
  });
  doc.commentBefore = [
    " Generated by deploy/grafana/dashboards.ts (npm run dashboards): edit that file, not this one.",
    ` The dashboard of deploy/grafana/dashboards/${spec.name}.json, for Grafana's dashboard sidecar (label grafana_dashboard: "1").`,
    " Its JSON is the committed file's byte for byte, so its long queries and descriptions stay on their lines:",
    " yamllint disable rule:line-length",
  ].join("\n");
  return doc.toString({ lineWidth: 0, blockQuote: "literal" });
}

/** Writes every dashboard and its ConfigMap; removes those of dashboards no longer generated. */
export function writeAll(): string[] {
  const specs = dashboardSpecs();
  mkdirSync(DASHBOARD_DIR, { recursive: true });
  const keep = new Set(specs.flatMap((s) => [dashboardFile(s.name), configMapFile(s.name)]));
  for (const f of readdirSync(DASHBOARD_DIR)) if (f.endsWith(".json") && !keep.has(path.join(DASHBOARD_DIR, f))) rmSync(path.join(DASHBOARD_DIR, f));
  for (const f of readdirSync(CONFIGMAP_DIR)) if (f.startsWith(CONFIGMAP_PREFIX) && !keep.has(path.join(CONFIGMAP_DIR, f))) rmSync(path.join(CONFIGMAP_DIR, f));
  for (const s of specs) {
    writeFileSync(dashboardFile(s.name), dashboardJson(s));
    writeFileSync(configMapFile(s.name), configMapYaml(s));
  }
  return [...keep].map((f) => path.relative(root, f));
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  for (const f of writeAll()) console.log(`wrote ${f}`);
}
