// The promtool unit tests of deploy/prometheus/rules.yml (test/deploy/prometheus-rules.test.ts
// writes them to a file and runs `promtool test rules`): for every alert, input series where it
// fires (namespace board-prod, or the faulty pod) beside series where it must not (board-dev, a
// healthy pod, and the faulty series before the fault), and the exact labels and annotations
// expected. Counters here grow by whole numbers per minute, so every ratio an alert reports is
// exact and its annotation can be spelt out.
import { SLOS, type AlertingRule, type RuleGroup, type Slo } from "../../deploy/prometheus/rules.js";

export interface InputSeries {
  series: string;
  values: string;
}
export interface ExpectedAlert {
  exp_labels: Record<string, string>;
  exp_annotations: Record<string, string>;
}
export interface AlertRuleTest {
  eval_time: string;
  alertname: string;
  exp_alerts: ExpectedAlert[];
}
export interface TestGroup {
  name: string;
  interval: string;
  input_series: InputSeries[];
  alert_rule_test: AlertRuleTest[];
}

const FAULTY = "board-prod";
const HEALTHY = "board-dev";

/** `name{k="v", ...}` in promtool's input syntax. */
const series = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(", ")}}`;
/** One value a minute for `minutes` minutes (0 included), from a function of the minute. */
const perMinute = (minutes: number, f: (t: number) => number) => Array.from({ length: minutes + 1 }, (_, t) => String(f(t))).join(" ");
/** A counter growing `before` a minute until `from`, then `after` a minute. */
const counter = (from: number, before: number, after: number) => (t: number) => before * Math.min(t, from) + after * Math.max(0, t - from);

// Go's text/template helpers as Prometheus defines them (template.go), for the values these tests produce.
const g4 = (v: number) => String(Number(v.toPrecision(4)));
function humanizeDuration(v: number): string {
  if (Math.abs(v) < 1) return `${g4(v * 1000)}ms`;
  const s = Math.trunc(v);
  const [days, hours, minutes, seconds] = [Math.trunc(s / 86400), Math.trunc(s / 3600) % 24, Math.trunc(s / 60) % 60, s % 60];
  if (days !== 0) return `${days}d ${hours}h ${minutes}m ${seconds}s`;
  if (hours !== 0) return `${hours}h ${minutes}m ${seconds}s`;
  if (minutes !== 0) return `${minutes}m ${seconds}s`;
  return `${g4(v)}s`;
}
function humanize(v: number): string {
  if (v === 0 || Math.abs(v) < 1) return g4(v);
  let prefix = "";
  for (const p of ["k", "M", "G", "T", "P", "E", "Z", "Y"]) {
    if (Math.abs(v) < 1000) break;
    prefix = p;
    v /= 1000;
  }
  return `${g4(v)}${prefix}`;
}
const FORMATS: Record<string, (v: number) => string> = {
  "": (v) => String(v),
  humanize,
  humanizePercentage: (v) => `${g4(v * 100)}%`,
  humanizeDuration,
};

/** An annotation template filled in as Prometheus would, for these labels and value. */
export function render(template: string, labels: Record<string, string>, value: number): string {
  return template.replace(/\{\{ \$(labels\.(\w+)|value)(?: \| (\w+))? \}\}/g, (whole, _what: string, label: string | undefined, format: string | undefined) => {
    if (label !== undefined) return labels[label] ?? "";
    const f = FORMATS[format ?? ""];
    if (!f) throw new Error(`no test rendering for ${whole}`);
    return f(value);
  });
}

/** The alert as `rule` makes it for these labels (the series' and the rule's) and value. */
function expected(rule: AlertingRule, labels: Record<string, string>, value: number): ExpectedAlert {
  const all = { ...labels, ...rule.labels };
  return {
    exp_labels: all,
    exp_annotations: Object.fromEntries(Object.entries(rule.annotations).map(([k, v]) => [k, render(v, all, value)])),
  };
}

function ruleNamed(groups: RuleGroup[], alert: string, severity?: string): AlertingRule {
  const rule = groups
    .flatMap((g) => g.rules)
    .find((r): r is AlertingRule => "alert" in r && r.alert === alert && (severity === undefined || r.labels.severity === severity));
  if (!rule) throw new Error(`no alerting rule ${alert} ${severity ?? ""}`);
  return rule;
}

const gatewaySeries = (ns: string, route: string, statusClass: string, extra: Record<string, string> = {}) =>
  ({ service: "gateway", namespace: ns, pod: `gateway-${ns}`, route, method: "GET", status_class: statusClass, ...extra }) as Record<string, string>;

/**
 * The input of one ratio objective: the series of both namespaces, and the error ratio the
 * faulty one has over the whole run (the long windows' value at its end). Counters: `valid`
 * events a minute throughout, of which `bad` a minute from minute 30 on (none in board-dev).
 */
interface SloInput {
  series(ns: string, faulty: boolean): InputSeries[];
  /** The faulty namespace's error ratio over minutes 0 to 50. */
  ratio: number;
}

const MINUTES = 50;
const FAULT_FROM = 30;

/** An HTTP availability objective: 2xx a minute, 5xx from minute 30 (the healthy namespace never has a 5xx series). */
function httpAvailability(route: string): SloInput {
  const ok = 600;
  const failed = 300;
  return {
    series: (ns, faulty) => [
      { series: series("http_request_duration_seconds_count", gatewaySeries(ns, route, "2xx")), values: perMinute(MINUTES, counter(MINUTES, ok, ok)) },
      // 4xx are the client's: many of them in both namespaces change nothing.
      { series: series("http_request_duration_seconds_count", gatewaySeries(ns, route, "4xx")), values: perMinute(MINUTES, counter(MINUTES, 5000, 5000)) },
      ...(faulty ? [{ series: series("http_request_duration_seconds_count", gatewaySeries(ns, route, "5xx")), values: perMinute(MINUTES, counter(FAULT_FROM, 0, failed)) }] : []),
    ],
    ratio: (failed * (MINUTES - FAULT_FROM)) / (ok * MINUTES + failed * (MINUTES - FAULT_FROM)),
  };
}

/** An HTTP latency objective: 2xx a minute, all within `le` until minute 30, half of them after. */
function httpLatency(route: string, le: string): SloInput {
  const all = 600;
  return {
    series: (ns, faulty) => [
      { series: series("http_request_duration_seconds_count", gatewaySeries(ns, route, "2xx")), values: perMinute(MINUTES, counter(MINUTES, all, all)) },
      {
        series: series("http_request_duration_seconds_bucket", gatewaySeries(ns, route, "2xx", { le })),
        values: perMinute(MINUTES, faulty ? counter(FAULT_FROM, all, all / 2) : counter(MINUTES, all, all)),
      },
    ],
    ratio: 1 - (all * FAULT_FROM + (all / 2) * (MINUTES - FAULT_FROM)) / (all * MINUTES),
  };
}

const SLO_INPUTS: Record<string, SloInput> = {
  "paid-reads-availability": httpAvailability("/api/board/regime"),
  "paid-reads-latency": httpLatency("/api/board/agent", "5"),
  "free-reads-availability": httpAvailability("/api/board/free"),
  "free-reads-latency": httpLatency("/api/board/state", "0.5"),
  "event-stream-availability": httpAvailability("/api/board/events"),
  "mcp-availability": httpAvailability("/mcp"),
  "board-freshness": {
    // Minute by minute: fresh (120 s) until minute 30, then 2,000 s old. Market hours and an intraday
    // provider throughout; board-dev stays fresh. The recorded samples are minutes 0 to 50: 20 stale of 51.
    series: (ns, faulty) => [
      { series: series("board_snapshot_age_seconds", { service: "board", namespace: ns, pod: `board-${ns}` }), values: perMinute(MINUTES, (t) => (faulty && t > FAULT_FROM ? 2000 : 120)) },
      { series: series("board_market_open", { service: "board", namespace: ns, pod: `board-${ns}` }), values: perMinute(MINUTES, () => 1) },
      { series: series("scanner_provider_intraday", { service: "scanner-ingest", namespace: ns, pod: `scanner-${ns}` }), values: perMinute(MINUTES, () => 1) },
    ],
    ratio: (MINUTES - FAULT_FROM) / (MINUTES + 1),
  },
  "scanner-cadence": {
    // A scan a minute (a test's pace), all within 120 s; from minute 30 the faulty scanner's scans fail.
    series: (ns, faulty) => {
      const labels = { service: "scanner-ingest", namespace: ns, pod: `scanner-${ns}` };
      return [
        { series: series("scanner_scans_total", { ...labels, outcome: "published" }), values: perMinute(MINUTES, faulty ? counter(FAULT_FROM, 1, 0) : counter(MINUTES, 1, 1)) },
        { series: series("scanner_scans_total", { ...labels, outcome: "failed" }), values: perMinute(MINUTES, faulty ? counter(FAULT_FROM, 0, 1) : () => 0) },
        { series: series("scanner_scans_total", { ...labels, outcome: "skipped" }), values: perMinute(MINUTES, counter(MINUTES, 3, 3)) },
        { series: series("scanner_publish_lag_seconds_bucket", { ...labels, le: "120" }), values: perMinute(MINUTES, faulty ? counter(FAULT_FROM, 1, 0) : counter(MINUTES, 1, 1)) },
      ];
    },
    ratio: (MINUTES - FAULT_FROM) / MINUTES,
  },
  "settlement-finality": {
    // 10 reads a minute answered before their block, final within 30 s; from minute 30 half of them come back unknown.
    series: (ns, faulty) => {
      const labels = { service: "payments", namespace: ns, pod: `payments-${ns}`, rail: "base" };
      return [
        { series: series("payments_settlement_finality_seconds_count", { ...labels, outcome: "final" }), values: perMinute(MINUTES, faulty ? counter(FAULT_FROM, 10, 5) : counter(MINUTES, 10, 10)) },
        {
          series: series("payments_settlement_finality_seconds_bucket", { ...labels, outcome: "final", le: "30" }),
          values: perMinute(MINUTES, faulty ? counter(FAULT_FROM, 10, 5) : counter(MINUTES, 10, 10)),
        },
        { series: series("payments_settlement_finality_seconds_count", { ...labels, outcome: "unknown" }), values: perMinute(MINUTES, faulty ? counter(FAULT_FROM, 0, 5) : () => 0) },
      ];
    },
    ratio: (5 * (MINUTES - FAULT_FROM)) / (10 * MINUTES),
  },
  "mcp-sessions": {
    // 60 sessions a minute; from minute 30 the faulty replica refuses 60 more at its capacity. board-dev's refusals are a client's own cap.
    series: (ns, faulty) => {
      const labels = { service: "gateway", namespace: ns, pod: `gateway-${ns}` };
      return [
        { series: series("mcp_sessions_opened_total", labels), values: perMinute(MINUTES, counter(MINUTES, 60, 60)) },
        faulty
          ? { series: series("mcp_sessions_refused_total", { ...labels, reason: "streams_at_capacity" }), values: perMinute(MINUTES, counter(FAULT_FROM, 0, 60)) }
          : { series: series("mcp_sessions_refused_total", { ...labels, reason: "too_many_streams" }), values: perMinute(MINUTES, counter(MINUTES, 60, 60)) },
      ];
    },
    ratio: (60 * (MINUTES - FAULT_FROM)) / (60 * MINUTES + 60 * (MINUTES - FAULT_FROM)),
  },
};

/** One ratio objective's alert: silent at minute 20 (no fault yet, and never in board-dev), both severities at minute 50. */
function sloTest(groups: RuleGroup[], slo: Slo): TestGroup {
  const input = SLO_INPUTS[slo.name];
  if (!input) throw new Error(`no test input for objective ${slo.name}`);
  const labels = { namespace: FAULTY, slo: slo.name };
  return {
    name: slo.alert,
    interval: "1m",
    input_series: [...input.series(FAULTY, true), ...input.series(HEALTHY, false)],
    alert_rule_test: [
      { eval_time: "20m", alertname: slo.alert, exp_alerts: [] },
      {
        eval_time: `${MINUTES}m`,
        alertname: slo.alert,
        exp_alerts: (["critical", "warning"] as const).map((severity) => expected(ruleNamed(groups, slo.alert, severity), labels, input.ratio)),
      },
    ],
  };
}

/** A test of one alert: its input, when it must be silent, and when it must fire with what. */
function alertTest(
  groups: RuleGroup[],
  alert: string,
  input_series: InputSeries[],
  silentAt: string,
  firesAt: string,
  fired: { labels: Record<string, string>; value: number }[],
): TestGroup {
  const rule = ruleNamed(groups, alert);
  return {
    name: alert,
    interval: "1m",
    input_series,
    alert_rule_test: [
      { eval_time: silentAt, alertname: alert, exp_alerts: [] },
      { eval_time: firesAt, alertname: alert, exp_alerts: fired.map((f) => expected(rule, f.labels, f.value)) },
    ],
  };
}

const pod = (service: string, ns: string, name: string) => ({ service, namespace: ns, pod: name });
const constant = (v: number, minutes = 60) => perMinute(minutes, () => v);

/** Every alert's unit test. */
export function alertTests(groups: RuleGroup[]): TestGroup[] {
  const kubeSpec = (ns: string, deployment: string, v: number) => ({ series: series("kube_deployment_spec_replicas", { namespace: ns, deployment }), values: constant(v) });
  const kubeAvailable = (ns: string, deployment: string, values: string) => ({ series: series("kube_deployment_status_replicas_available", { namespace: ns, deployment }), values });
  return [
    ...SLOS.map((slo) => sloTest(groups, slo)),

    // The scanner's next slot: 5 minutes ahead of the clock in board-dev; stuck at 5 minutes past 0 in board-prod (overdue from minute 16, firing 5 minutes later).
    alertTest(
      groups,
      "ScannerScanOverdue",
      [
        { series: series("scanner_next_scan_timestamp_seconds", pod("scanner-ingest", HEALTHY, "scanner-0")), values: perMinute(60, (t) => 60 * t + 300) },
        { series: series("scanner_next_scan_timestamp_seconds", pod("scanner-ingest", FAULTY, "scanner-0")), values: constant(300) },
      ],
      "15m",
      "30m",
      [{ labels: { namespace: FAULTY }, value: 1800 - 300 }],
    ),
    // The oldest claim: a new one each minute in board-dev; a pending settlement from time 0 never ended in board-prod.
    alertTest(
      groups,
      "PaymentClaimsUnsettled",
      [
        { series: series("payments_oldest_unsettled_claim_timestamp_seconds", { ...pod("payments", HEALTHY, "payments-0"), stage: "claimed" }), values: perMinute(60, (t) => 60 * t) },
        { series: series("payments_oldest_unsettled_claim_timestamp_seconds", { ...pod("payments", FAULTY, "payments-0"), stage: "pending" }), values: constant(0) },
        { series: series("payments_oldest_unsettled_claim_timestamp_seconds", { ...pod("payments", FAULTY, "payments-1"), stage: "pending" }), values: perMinute(60, (t) => 60 * t) },
      ],
      "10m",
      "30m",
      [{ labels: { namespace: FAULTY, stage: "pending" }, value: 1800 }],
    ),
    // Two board replicas at seq 10 (one at 9 in board-dev, behind its gateway: not the gateway's fault); gateway-2 stays at 9.
    alertTest(
      groups,
      "EventStreamBehind",
      [
        { series: series("board_publication_seq", pod("board", FAULTY, "board-1")), values: constant(10) },
        { series: series("board_publication_seq", pod("board", FAULTY, "board-2")), values: constant(10) },
        { series: series("event_feed_seq", pod("gateway", FAULTY, "gateway-1")), values: constant(10) },
        { series: series("event_feed_seq", pod("gateway", FAULTY, "gateway-2")), values: constant(9) },
        { series: series("board_publication_seq", pod("board", HEALTHY, "board-1")), values: constant(9) },
        { series: series("event_feed_seq", pod("gateway", HEALTHY, "gateway-1")), values: constant(10) },
      ],
      "2m",
      "10m",
      [{ labels: pod("gateway", FAULTY, "gateway-2"), value: 1 }],
    ),
    // payments in board-prod loses its last replica at minute 3; gateway is fine; scanner-ingest scaled to 0 on purpose; another app's "gateway" is not ours.
    alertTest(
      groups,
      "ServiceNoReadyReplica",
      [
        kubeSpec(FAULTY, "payments", 2),
        kubeAvailable(FAULTY, "payments", perMinute(60, (t) => (t < 3 ? 2 : 0))),
        kubeSpec(FAULTY, "gateway", 2),
        kubeAvailable(FAULTY, "gateway", constant(2)),
        kubeSpec(FAULTY, "scanner-ingest", 0),
        kubeAvailable(FAULTY, "scanner-ingest", constant(0)),
        kubeSpec("other-app", "gateway", 2),
        kubeAvailable("other-app", "gateway", constant(0)),
      ],
      "4m",
      "10m",
      [{ labels: { namespace: FAULTY, deployment: "payments" }, value: 2 }],
    ),
    // payments runs but none of its series arrive (gateway's do).
    alertTest(
      groups,
      "ServiceNotScraped",
      [
        kubeAvailable(FAULTY, "payments", constant(2)),
        kubeAvailable(FAULTY, "gateway", constant(2)),
        { series: series("process_start_time_seconds", pod("gateway", FAULTY, "gateway-1")), values: constant(1) },
      ],
      "5m",
      "15m",
      [{ labels: { namespace: FAULTY, deployment: "payments" }, value: 2 }],
    ),
    // metering-1 loses the bus at minute 3 and stays off.
    alertTest(
      groups,
      "NatsDisconnected",
      [
        { series: series("bus_connected", pod("metering", FAULTY, "metering-0")), values: constant(1) },
        { series: series("bus_connected", pod("metering", FAULTY, "metering-1")), values: perMinute(60, (t) => (t < 3 ? 1 : 0)) },
      ],
      "3m",
      "6m",
      [{ labels: pod("metering", FAULTY, "metering-1"), value: 0 }],
    ),
    // gateway-1 reconnects every minute from minute 5 (4 in 15 minutes by minute 9, firing from 14); gateway-0 lost it once.
    alertTest(
      groups,
      "NatsReconnectsFrequent",
      [
        { series: series("bus_disconnects_total", pod("gateway", FAULTY, "gateway-0")), values: perMinute(60, (t) => (t < 2 ? 0 : 1)) },
        { series: series("bus_disconnects_total", pod("gateway", FAULTY, "gateway-1")), values: perMinute(60, counter(5, 0, 1)) },
      ],
      "5m",
      "20m",
      [{ labels: pod("gateway", FAULTY, "gateway-1"), value: 15 }],
    ),
    // board-1 three snapshots behind, metering-1 20,000 reads behind; their neighbours within bounds.
    alertTest(
      groups,
      "JetStreamConsumerLagging",
      [
        { series: series("jetstream_consumer_lag_messages", { ...pod("board", FAULTY, "board-0"), stream: "BOARD" }), values: constant(0) },
        { series: series("jetstream_consumer_lag_messages", { ...pod("board", FAULTY, "board-1"), stream: "BOARD" }), values: constant(3) },
        { series: series("jetstream_consumer_lag_messages", { ...pod("metering", FAULTY, "metering-0"), stream: "READS" }), values: constant(500) },
        { series: series("jetstream_consumer_lag_messages", { ...pod("metering", FAULTY, "metering-1"), stream: "READS" }), values: constant(20000) },
      ],
      "5m",
      "15m",
      [
        { labels: { ...pod("board", FAULTY, "board-1"), stream: "BOARD" }, value: 3 },
        { labels: { ...pod("metering", FAULTY, "metering-1"), stream: "READS" }, value: 20000 },
      ],
    ),
    // payments-0 has queries waiting; payments-1 has every connection busy; payments-2 is fine.
    alertTest(
      groups,
      "DatabasePoolSaturated",
      [
        ...(
          [
            ["payments-0", 10, 0, 3],
            ["payments-1", 10, 0, 0],
            ["payments-2", 4, 3, 0],
          ] as const
        ).flatMap(([name, open, idle, waiting]) => [
          { series: series("db_pool_connections", pod("payments", FAULTY, name)), values: constant(open) },
          { series: series("db_pool_idle_connections", pod("payments", FAULTY, name)), values: constant(idle) },
          { series: series("db_pool_max_connections", pod("payments", FAULTY, name)), values: constant(10) },
          { series: series("db_pool_waiting_clients", pod("payments", FAULTY, name)), values: constant(waiting) },
        ]),
      ],
      "4m",
      "10m",
      [
        { labels: pod("payments", FAULTY, "payments-0"), value: 3 },
        { labels: pod("payments", FAULTY, "payments-1"), value: 1 },
      ],
    ),
    // Two statement timeouts a minute in board-prod's metering; none of the other kinds.
    alertTest(
      groups,
      "DatabaseTimeouts",
      [
        { series: series("db_timeouts_total", { ...pod("metering", FAULTY, "metering-0"), kind: "statement" }), values: perMinute(60, counter(60, 2, 2)) },
        { series: series("db_timeouts_total", { ...pod("metering", FAULTY, "metering-0"), kind: "acquire" }), values: constant(0) },
      ],
      "2m",
      "20m",
      [{ labels: { namespace: FAULTY, service: "metering", kind: "statement" }, value: 20 }],
    ),
    // Solana is down on both replicas; Base is live on one of them (enough: it is offered).
    alertTest(
      groups,
      "PaymentRailDown",
      [
        { series: series("payments_rail_up", { ...pod("payments", FAULTY, "payments-0"), rail: "solana" }), values: perMinute(60, (t) => (t < 2 ? 1 : 0)) },
        { series: series("payments_rail_up", { ...pod("payments", FAULTY, "payments-1"), rail: "solana" }), values: constant(0) },
        { series: series("payments_rail_up", { ...pod("payments", FAULTY, "payments-0"), rail: "base" }), values: constant(1) },
        { series: series("payments_rail_up", { ...pod("payments", FAULTY, "payments-1"), rail: "base" }), values: constant(0) },
      ],
      "5m",
      "10m",
      [{ labels: { namespace: FAULTY, rail: "solana" }, value: 0 }],
    ),
    // Base's facilitator runs low at minute 3 (so does MPP's, the same account); Solana's has no warning.
    alertTest(
      groups,
      "PaymentFacilitatorBalanceLow",
      [
        ...(["base", "mpp"] as const).map((rail) => ({
          series: series("payments_rail_warning", { ...pod("payments", FAULTY, "payments-0"), rail, warning: "facilitator_balance_low" }),
          values: perMinute(60, (t) => (t < 3 ? 0 : 1)),
        })),
        { series: series("payments_rail_warning", { ...pod("payments", FAULTY, "payments-0"), rail: "solana", warning: "facilitator_balance_low" }), values: constant(0) },
        { series: series("payments_rail_warning", { ...pod("payments", FAULTY, "payments-0"), rail: "base", warning: "multicall3_missing" }), values: constant(1) },
      ],
      "10m",
      "20m",
      [
        { labels: { namespace: FAULTY, rail: "base" }, value: 1 },
        { labels: { namespace: FAULTY, rail: "mpp" }, value: 1 },
      ],
    ),
    // Base: 100 settled a minute, and from minute 10, 20 failed a minute (1 in 6). Solana's refusals are the payers'.
    alertTest(
      groups,
      "PaymentSettlementsFailing",
      [
        { series: series("payments_settlements_total", { ...pod("payments", FAULTY, "payments-0"), rail: "base", outcome: "settled", reason: "none" }), values: perMinute(60, counter(60, 100, 100)) },
        {
          series: series("payments_settlements_total", { ...pod("payments", FAULTY, "payments-0"), rail: "base", outcome: "failed", reason: "settlement_not_sent" }),
          values: perMinute(60, counter(10, 0, 20)),
        },
        { series: series("payments_settlements_total", { ...pod("payments", FAULTY, "payments-0"), rail: "solana", outcome: "settled", reason: "none" }), values: perMinute(60, counter(60, 100, 100)) },
        {
          series: series("payments_settlements_total", { ...pod("payments", FAULTY, "payments-0"), rail: "solana", outcome: "refused", reason: "payment_insufficient_funds" }),
          values: perMinute(60, counter(60, 50, 50)),
        },
      ],
      "10m",
      "30m",
      [{ labels: { namespace: FAULTY, rail: "base" }, value: 200 / 1200 }],
    ),
    // One read lost on Base at minute 11.
    alertTest(
      groups,
      "PaymentsReadsLost",
      [
        { series: series("payments_losses_total", { ...pod("payments", FAULTY, "payments-0"), rail: "base", reason: "payment_insufficient_funds" }), values: perMinute(60, (t) => (t <= 10 ? 0 : 1)) },
        { series: series("payments_losses_total", { ...pod("payments", HEALTHY, "payments-0"), rail: "base", reason: "payment_insufficient_funds" }), values: constant(2) },
      ],
      "5m",
      "20m",
      [{ labels: { namespace: FAULTY, rail: "base" }, value: 1 }],
    ),
    // identity's token key falls due 50,000 s after time 0 from minute 11 on (it was 1,000,000 before); payments' receipt key is far from it.
    alertTest(
      groups,
      "SigningKeyNearRotation",
      [
        { series: series("signing_key_rotation_due_timestamp_seconds", { ...pod("identity", FAULTY, "identity-0"), key: "access_token" }), values: perMinute(60, (t) => (t <= 10 ? 1_000_000 : 50_000)) },
        { series: series("signing_key_rotation_due_timestamp_seconds", { ...pod("payments", FAULTY, "payments-0"), key: "receipt" }), values: constant(10_000_000) },
      ],
      "5m",
      "20m",
      [{ labels: { namespace: FAULTY, service: "identity", key: "access_token" }, value: 50_000 - 1200 }],
    ),
    // Both keys' successors were due at time 0: payments published its receipt key's, identity did not.
    alertTest(
      groups,
      "SigningKeyRotationStalled",
      [
        { series: series("signing_key_successor_due_timestamp_seconds", { ...pod("identity", FAULTY, "identity-0"), key: "access_token" }), values: constant(0) },
        { series: series("signing_key_successor_published", { ...pod("identity", FAULTY, "identity-0"), key: "access_token" }), values: constant(0) },
        { series: series("signing_key_successor_due_timestamp_seconds", { ...pod("payments", FAULTY, "payments-0"), key: "receipt" }), values: constant(0) },
        { series: series("signing_key_successor_published", { ...pod("payments", FAULTY, "payments-0"), key: "receipt" }), values: constant(1) },
      ],
      "10m",
      "30m",
      [{ labels: { namespace: FAULTY, service: "identity", key: "access_token" }, value: 1800 }],
    ),
    // payments-1 restarts in development mode at minute 2.
    alertTest(
      groups,
      "DevelopmentPaymentsInProduction",
      [
        { series: series("payments_mode", { ...pod("payments", FAULTY, "payments-0"), mode: "production" }), values: constant(1) },
        { series: series("payments_mode", { ...pod("payments", FAULTY, "payments-0"), mode: "development" }), values: constant(0) },
        { series: series("payments_mode", { ...pod("payments", FAULTY, "payments-1"), mode: "production" }), values: perMinute(60, (t) => (t < 2 ? 1 : 0)) },
        { series: series("payments_mode", { ...pod("payments", FAULTY, "payments-1"), mode: "development" }), values: perMinute(60, (t) => (t < 2 ? 0 : 1)) },
      ],
      "2m",
      "5m",
      [{ labels: { namespace: FAULTY, pod: "payments-1" }, value: 1 }],
    ),
  ];
}
