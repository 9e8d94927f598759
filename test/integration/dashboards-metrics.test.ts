// The Grafana dashboards (deploy/grafana/dashboards.ts) against what a running stack exports:
// the six services in-process on the test NATS and Postgres, payments on a local EVM chain
// (Base), the scanner on its simulator. Reads of each kind (free, a 402, a paid read settled on
// the chain, a free key's, a licence's, refusals) make the series exist; then every service's
// /metrics (its health port) is scraped and parsed, and every metric name and every label matcher
// of every dashboard query must be there: on the service its service="..." matcher names, a
// histogram's _bucket, _sum and _count included. A query naming a metric or a label no service
// exports fails this test.
import { identityLicenseIssue, type LicenseIssueReply } from "@board/proto";
import { request, type Runtime } from "@board/service-kit";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildDashboard, dashboardSpecs, queriesOf, SCRAPE_LABELS, SERVICES, type Service } from "../../deploy/grafana/dashboards.js";
import { selectorsOf } from "../../deploy/grafana/promql.js";
import { ScannerEnv } from "../../services/scanner-ingest/src/env.js";
import { startScanner, type ScannerService } from "../../services/scanner-ingest/src/start.js";
import { Stack } from "./harness.js";

/**
 * Families (or "<service> <family>") whose series appear only on a fault (a refusal at capacity,
 * a dropped stream, a lost transfer, a claim left open), on what this stack's Base rail does not
 * do (answer a read before its block), or with several replicas (metering's burst cluster asks
 * its peers): declared at /metrics (# TYPE) but without samples here. Their label names are read
 * from the service's registry instead. Every other family a dashboard reads must have samples
 * after the reads below.
 */
const FAULT_ONLY = new Set([
  "metering bus_round_trip_seconds_count",
  "event_streams_dropped_total",
  "mcp_sessions_refused_total",
  "payments_losses_total",
  "payments_lost_base_units_total",
  "payments_answered_before_block_total",
  "payments_settlement_finality_seconds_bucket",
  "payments_oldest_unsettled_claim_timestamp_seconds",
]);

const stack = new Stack();
let chain: EvmChain;
let scanner: ScannerService | undefined;
const payTo = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 4 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex });
  await stack.untilServing();
  scanner = await startScanner(ScannerEnv.parse({ ...stack.busEnv("scanner-ingest"), HEALTH_PORT: 0, LOG_LEVEL: "warn" }));
  await scanner.ready;
  await readsOfEachKind();
}, 180_000);
afterAll(async () => {
  await scanner?.stop();
  await stack.stop();
  await chain?.stop();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.base}${path}`, { headers });

async function readsOfEachKind() {
  // Free reads and the catalogue.
  expect((await get("/api/board/status")).status).toBe(200);
  expect((await get("/api")).status).toBe(402);
  // A 402 offered, then a paid read settled on the chain.
  expect((await get("/api/board/regime")).status).toBe(402);
  const key = generatePrivateKey();
  await chain.mint(privateKeyToAccount(key).address, 1_000_000n);
  const pay = wrapFetchWithPayment(fetch, new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key))));
  expect((await pay(`${stack.base}/api/board/regime`)).status).toBe(200);
  // A free key and a free-tier read with it.
  const res = await fetch(`${stack.base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "dashboards@example.com" }) });
  expect(res.status).toBe(201);
  const freeKey = ((await res.json()) as { key: string }).key;
  expect((await get("/api/board/regime", { "x-board-key": freeKey })).status).toBe(200);
  // A licence: issued, read with, and a bearer token minted from it.
  const licence: LicenseIssueReply = await request(stack.nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "dashboards test" }, { timeoutMs: 5000 });
  expect((await get("/api/board/buylist", { "x-license-key": licence.key })).status).toBe(200);
  const token = await fetch(`${stack.base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: licence.license.client_id, client_secret: licence.key }).toString(),
  });
  expect(token.status).toBe(200);
  // A refusal with an error body (errors_total by code).
  expect((await get("/api/board/buylist", { "x-license-key": "not-a-licence" })).status).toBeGreaterThanOrEqual(400);
  // A request each service refuses (not JSON: bad_request), so every errors_total has a series.
  for (const subject of ["board.v1.read", "identity.v1.resolve", "metering.v1.consume", "payments.v1.claim", "scanner-ingest.v1.ping"]) {
    const reply = await stack.nc.request(subject, new TextEncoder().encode("not json"), { timeout: 5000 });
    expect(reply.headers?.get("Nats-Service-Error-Code"), subject).toMatch(/^4\d\d$/);
  }
}

interface Family {
  type: string;
  /** Samples by their full name (a histogram's _bucket, _sum, _count), each with its label names. */
  samples: Map<string, Set<string>[]>;
}
type Exposition = Map<string, Family>;

/** The Prometheus text exposition format, as prom-client writes it. */
export function parseExposition(text: string): Exposition {
  const families: Exposition = new Map();
  const familyOf = (sample: string) => {
    if (families.has(sample)) return families.get(sample);
    const base = sample.replace(/_(bucket|sum|count)$/, "");
    const f = families.get(base);
    return f && (f.type === "histogram" || f.type === "summary") ? f : undefined;
  };
  for (const line of text.split("\n")) {
    if (line.startsWith("# TYPE ")) {
      const [, , name, type] = line.split(" ");
      families.set(name!, { type: type!, samples: new Map() });
      continue;
    }
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+\S+/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const f = familyOf(m[1]!);
    if (!f) throw new Error(`a sample of no declared family: ${line}`);
    const labels = new Set([...(m[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g)].map((l) => l[1]!));
    f.samples.set(m[1]!, [...(f.samples.get(m[1]!) ?? []), labels]);
  }
  return families;
}

function runtimes(): Record<Service, Runtime<never>> {
  const rt = (s: { runtime: unknown } | null | undefined, name: string) => {
    if (!s) throw new Error(`${name} is not running`);
    return s.runtime as Runtime<never>;
  };
  return {
    gateway: rt(stack.gateway, "gateway"),
    board: rt(stack.board, "board"),
    identity: rt(stack.identity, "identity"),
    metering: rt(stack.metering, "metering"),
    payments: rt(stack.payments, "payments"),
    "scanner-ingest": rt(scanner, "scanner-ingest"),
  };
}

async function scrape(): Promise<Record<Service, Exposition>> {
  const rts = runtimes();
  const out = {} as Record<Service, Exposition>;
  for (const service of SERVICES) {
    const res = await fetch(`http://127.0.0.1:${rts[service].health.port}/metrics`);
    expect(res.status, `${service} /metrics`).toBe(200);
    out[service] = parseExposition(await res.text());
  }
  return out;
}

/** The label names a family was declared with, from the service's own registry (for one without samples). */
function declaredLabels(service: Service, family: string): Set<string> {
  const metric = runtimes()[service].metrics.registry.getSingleMetric(family) as unknown as { labelNames?: string[] } | undefined;
  return new Set(["service", ...(metric?.labelNames ?? [])]);
}

/** Every selector of `queries` against the scrapes: the problems found, and the (service, family) pairs read without samples. */
function check(exported: Record<Service, Exposition>, queries: { where: string; expr: string }[]) {
  const problems: string[] = [];
  const unexercised = new Set<string>();
  let checked = 0;
  for (const { where: panel, expr } of queries) {
    for (const s of selectorsOf(expr)) {
      checked++;
      const where = `${panel}: ${s.metric}`;
      const named = s.matchers.find((m) => m.label === "service" && m.op === "=")?.value as Service | undefined;
      if (named && !SERVICES.includes(named)) {
        problems.push(`${where}: service="${named}" is none of ours`);
        continue;
      }
      const services = named ? [named] : [...SERVICES];
      const base = s.metric.replace(/_(bucket|sum|count)$/, "");
      const holders = services.filter((svc) => {
        const e = exported[svc];
        return e.has(s.metric) || (base !== s.metric && ["histogram", "summary"].includes(e.get(base)?.type ?? ""));
      });
      if (holders.length === 0) {
        problems.push(`${where}: not exported by ${services.join(", ")}`);
        continue;
      }
      for (const svc of holders) {
        const family = exported[svc].get(s.metric) ?? exported[svc].get(base)!;
        const samples = family.samples.get(s.metric) ?? [];
        let labels: Set<string>;
        if (samples.length > 0) labels = new Set(samples.flatMap((l) => [...l]));
        else {
          unexercised.add(`${svc} ${s.metric}`);
          labels = declaredLabels(svc, exported[svc].has(s.metric) ? s.metric : base);
        }
        for (const m of s.matchers) {
          if ((SCRAPE_LABELS as readonly string[]).includes(m.label)) continue;
          if (!labels.has(m.label)) problems.push(`${where}: ${svc} exports no label ${m.label} (has ${[...labels].sort().join(", ")})`);
        }
      }
    }
  }
  return { problems, unexercised, checked };
}

describe("every dashboard query reads what the services export", () => {
  test("the exposition parser reads families, histogram samples and label names", () => {
    const e = parseExposition(
      ['# HELP h x', '# TYPE h histogram', 'h_bucket{le="1",service="a"} 1', 'h_sum{service="a"} 2', 'h_count{service="a"} 1', '# TYPE c counter', 'c{code="x \\"y\\"",service="a"} 3', ""].join("\n"),
    );
    expect([...e.keys()]).toEqual(["h", "c"]);
    expect([...e.get("h")!.samples.keys()]).toEqual(["h_bucket", "h_sum", "h_count"]);
    expect([...e.get("c")!.samples.get("c")![0]!]).toEqual(["code", "service"]);
  });

  test("every metric and label matcher of every panel is at /metrics of the service it names", async () => {
    const queries = dashboardSpecs().flatMap((spec) => [
      // The namespace variable's values come from this series.
      { where: `${spec.name} / $namespace`, expr: spec.namespacesFrom },
      ...queriesOf(buildDashboard(spec)).map((q) => ({ where: `${spec.name} / ${q.panel}`, expr: q.expr })),
    ]);
    const { problems, unexercised, checked } = check(await scrape(), queries);
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
    // The list names nothing the dashboards no longer read.
    const read = new Set(queries.flatMap((q) => selectorsOf(q.expr).map((sel) => sel.metric)));
    expect([...FAULT_ONLY].filter((f) => !read.has(f.split(" ").at(-1)!))).toEqual([]);
    // Only the fault-only families may lack samples: every other series exists after the reads.
    expect([...unexercised].filter((m) => !FAULT_ONLY.has(m) && !FAULT_ONLY.has(m.split(" ")[1]!)).sort(), "families a dashboard reads that these reads did not make").toEqual([]);
  });

  test("a query naming a metric no service exports, a label a metric lacks, or another service fails the check", async () => {
    const exported = await scrape();
    const ns = 'namespace=~"$namespace"';
    const { problems } = check(exported, [
      { where: "no such metric", expr: `sum(rate(payments_revenue_base_units_total{service="payments", ${ns}}[5m]))` },
      { where: "no such label", expr: `sum(rate(payments_settlements_total{service="payments", route="/api"}[5m]))` },
      { where: "another service's metric", expr: `max(board_snapshot_age_seconds{service="gateway", ${ns}})` },
      { where: "not a histogram", expr: `sum(rate(errors_total_bucket{service="gateway"}[5m]))` },
      { where: "fine", expr: `sum by (le) (rate(http_request_duration_seconds_bucket{service="gateway", route="/api", ${ns}}[5m]))` },
    ]);
    expect(problems.map((p) => p.split(":")[0])).toEqual(["no such metric", "no such label", "another service's metric", "not a histogram"]);
  });
});
