import { randomBytes, randomUUID } from "node:crypto";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { boardRead, identityResolve, identitySignInChallenge, meteringConsumeMany, paymentsClaim, paymentsRequirements, paymentsSettle, SERVED_READ_SUBJECT, SNAPSHOT_SUBJECT } from "@board/proto";
import { exportSpansTo, otel, request } from "@board/service-kit";
import { fixtureSnapshot, InMemorySpanExporter, type ReadableSpan } from "@board/service-kit/testing";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishSnapshot } from "../../services/scanner-ingest/src/publish.js";
import { Stack, until } from "./harness.js";

// One trace from HTTP requests through the gateway into identity, metering, payments and
// board, read back from the spans every service of the stack recorded (all in this process).
const exporter = new InMemorySpanExporter();
const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
let freeKey = "";

beforeAll(async () => {
  exportSpansTo(exporter);
  chain = await startEvmChain({ accounts: 4 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex, PUBLIC_BASE_URL: "http://127.0.0.1:8080" });
  await stack.untilServing();
  const res = await fetch(`${stack.base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "tracer@example.com" }) });
  expect(res.status).toBe(201);
  freeKey = ((await res.json()) as { key: string }).key;
}, 60_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
  exportSpansTo(null);
});

const serviceOf = (s: ReadableSpan) => String(s.resource.attributes["service.name"]);
const idOf = (s: ReadableSpan) => s.spanContext().spanId;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const show = (ss: ReadableSpan[]) => ss.map((s) => `${serviceOf(s)}:${otel.SpanKind[s.kind]}:${s.name}`).join("\n");

describe("one trace across the stack", () => {
  // The client's own span: both HTTP requests below are its children, so they share its trace id.
  const traceId = randomBytes(16).toString("hex");
  const clientSpanId = randomBytes(8).toString("hex");
  const traceparent = `00-${traceId}-${clientSpanId}-01`;
  let trace: ReadableSpan[] = [];

  beforeAll(async () => {
    // A free-key read: identity resolves the key, metering counts the read, the board serves it.
    const free = await fetch(`${stack.base}/api/board/regime`, { headers: { "x-board-key": freeKey, traceparent } });
    expect(free.status).toBe(200);
    // A paid read of a route outside the free tier: the 402 (payments asks identity for a
    // sign-in challenge), then the payment: claimed, the board read, settled on Base.
    const account = privateKeyToAccount(generatePrivateKey());
    await chain.mint(account.address, 1_000_000n);
    const pay = wrapFetchWithPayment(fetch, new x402Client().register("eip155:*", new ExactEvmScheme(account)));
    const paid = await pay(`${stack.base}/api/board/agent`, { headers: { "x-board-key": freeKey, traceparent } });
    expect(paid.status).toBe(200);
    await paid.arrayBuffer();
    // Spans end as replies go out; the last ones can land just after the response.
    await until(() => {
      trace = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
      return trace.filter((s) => s.attributes["http.route"] !== undefined).length === 3 && trace.some((s) => s.name === paymentsSettle.subject && s.kind === otel.SpanKind.SERVER);
    });
  });

  it("runs through the gateway into identity, metering, payments and board", () => {
    expect(new Set(trace.map(serviceOf))).toEqual(new Set(["gateway", "identity", "metering", "payments", "board"]));
  });

  it("has one HTTP SERVER span per request at the gateway, each the child of the client's span, named by route template", () => {
    const http = trace.filter((s) => s.kind === otel.SpanKind.SERVER && serviceOf(s) === "gateway");
    expect(http.map((s) => s.name).sort(), show(trace)).toEqual(["GET /api/board/agent", "GET /api/board/agent", "GET /api/board/regime"]);
    for (const s of http) {
      expect(parentOf(s)).toBe(clientSpanId);
      expect(s.attributes).toMatchObject({ "http.request.method": "GET" });
    }
    expect(http.map((s) => s.attributes["http.response.status_code"]).sort()).toEqual([200, 200, 402]);
  });

  it("makes every bus SERVER span the child of its caller's CLIENT span for that subject, and the gateway's CLIENT spans children of an HTTP span", () => {
    const byId = new Map(trace.map((s) => [idOf(s), s]));
    const http = new Set(trace.filter((s) => s.attributes["http.route"] !== undefined).map(idOf));
    const busServers = trace.filter((s) => s.kind === otel.SpanKind.SERVER && serviceOf(s) !== "gateway");
    for (const server of busServers) {
      const client = byId.get(parentOf(server) ?? "");
      expect(client, `parent of ${serviceOf(server)}:${server.name}`).toBeDefined();
      expect(client!.kind).toBe(otel.SpanKind.CLIENT);
      expect(client!.name).toBe(server.name);
      expect(serviceOf(server)).toBe(server.name.split(".")[0]);
      if (serviceOf(client!) === "gateway") expect(http.has(parentOf(client!) ?? ""), `${client!.name} under an HTTP span`).toBe(true);
    }
    const served = new Set(busServers.filter((s) => byId.get(parentOf(s) ?? "") && serviceOf(byId.get(parentOf(s)!)!) === "gateway").map((s) => s.name));
    for (const ep of [identityResolve, meteringConsumeMany, boardRead, paymentsRequirements, paymentsClaim, paymentsSettle]) expect(served, show(trace)).toContain(ep.subject);
  });

  it("nests a call one service makes while handling another's: payments asks identity for the 402's sign-in challenge", () => {
    const byId = new Map(trace.map((s) => [idOf(s), s]));
    const challenge = trace.find((s) => s.kind === otel.SpanKind.SERVER && s.name === identitySignInChallenge.subject);
    expect(challenge, show(trace)).toBeDefined();
    const client = byId.get(parentOf(challenge!) ?? "")!;
    expect(serviceOf(client)).toBe("payments");
    const handler = byId.get(parentOf(client) ?? "")!;
    expect(handler).toMatchObject({ name: paymentsRequirements.subject, kind: otel.SpanKind.SERVER });
  });

  it("shows a handler's database queries as its children", () => {
    const byId = new Map(trace.map((s) => [idOf(s), s]));
    const queries = trace.filter((s) => s.attributes["db.system.name"] === "postgresql");
    const claimQueries = queries.filter((q) => byId.get(parentOf(q) ?? "")?.name === paymentsClaim.subject);
    expect(claimQueries.map((q) => q.attributes["db.operation.name"]), show(trace)).toContain("INSERT");
    for (const q of queries) {
      const parent = byId.get(parentOf(q) ?? "");
      expect(parent?.kind, `parent of ${q.name}`).toBe(otel.SpanKind.SERVER);
      expect(serviceOf(q)).toBe(serviceOf(parent!));
      expect(q.kind).toBe(otel.SpanKind.CLIENT);
    }
  });

  it("links the served-read counts the gateway publishes to the reads they count", async () => {
    // Counted per window, published outside any one read: a PRODUCER span of its own trace, with links.
    const http = trace.filter((s) => s.attributes["http.route"] !== undefined && s.attributes["http.response.status_code"] === 200).map(idOf);
    let linked = new Set<string>();
    await until(() => {
      const publishes = exporter.getFinishedSpans().filter((s) => s.kind === otel.SpanKind.PRODUCER && s.name === `publish ${SERVED_READ_SUBJECT}`);
      linked = new Set(publishes.flatMap((p) => p.links.filter((l) => l.context.traceId === traceId).map((l) => l.context.spanId)));
      return http.every((id) => linked.has(id));
    });
    expect(http.length).toBe(2);
    for (const id of http) expect(linked.has(id)).toBe(true);
    // Never the read's child: the publish belongs to no single read.
    expect(trace.some((s) => s.kind === otel.SpanKind.PRODUCER && s.name === `publish ${SERVED_READ_SUBJECT}`)).toBe(false);
  });
});

/** The samples of `name` in Prometheus text whose labels include `labels`. */
function samples(text: string, name: string, labels: Record<string, string> = {}): { labels: Record<string, string>; value: number }[] {
  const out = [];
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) out.push({ labels: have, value: Number(m[3]) });
  }
  return out;
}

const scrape = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};

describe("/metrics on the health ports after that traffic", () => {
  beforeAll(async () => {
    expect((await fetch(`${stack.base}/no/such/path`)).status).toBe(404);
    expect((await fetch(`${stack.base}/api/board/agent?preview=nope`)).status).toBe(400);
  });

  it("gateway: HTTP latency by route template, method and status class; HTTP errors by reason code; round trips by subject", async () => {
    const text = await scrape(stack.gateway.runtime.health.port);
    expect(samples(text, "http_request_duration_seconds_count", { route: "/api/board/regime", method: "GET", status_class: "2xx", service: "gateway" })[0]?.value).toBeGreaterThanOrEqual(1);
    expect(samples(text, "http_request_duration_seconds_count", { route: "/api/board/agent", method: "GET", status_class: "4xx" })[0]?.value).toBeGreaterThanOrEqual(1);
    expect(samples(text, "http_request_duration_seconds_count", { route: "unmatched", method: "GET", status_class: "4xx" })[0]?.value).toBeGreaterThanOrEqual(1);
    expect(samples(text, "http_request_duration_seconds_bucket", { route: "/api/board/regime", le: "+Inf" }).length).toBeGreaterThan(0);
    // The route label is a template of the catalogue, never a raw path.
    for (const s of samples(text, "http_request_duration_seconds_count")) expect(s.labels.route).not.toBe("/no/such/path");
    expect(samples(text, "errors_total", { code: "not_found" })[0]?.value).toBeGreaterThanOrEqual(1);
    expect(samples(text, "errors_total", { code: "invalid_query" })[0]?.value).toBeGreaterThanOrEqual(1);
    for (const ep of [identityResolve, meteringConsumeMany, boardRead, paymentsClaim, paymentsSettle])
      expect(samples(text, "bus_round_trip_seconds_count", { subject: ep.subject, outcome: "ok" })[0]?.value, ep.subject).toBeGreaterThanOrEqual(1);
  });

  it("payments: settlements by rail and outcome, a refusal with its reason", async () => {
    // A claim that is not open (here: none at all) is refused by the ledger.
    await expect(request(stack.nc, paymentsSettle, { claim_id: randomUUID() })).rejects.toMatchObject({ code: "payment_already_used" });
    const text = await scrape(stack.payments!.runtime.health.port);
    expect(samples(text, "payments_settlements_total", { rail: "base", outcome: "settled", reason: "none", service: "payments" })[0]?.value).toBe(1);
    expect(samples(text, "payments_settlements_total", { rail: "unknown", outcome: "refused", reason: "payment_already_used" })[0]?.value).toBe(1);
    expect(samples(text, "bus_handled_seconds_count", { subject: paymentsSettle.subject, outcome: "ok" })[0]?.value).toBe(1);
    expect(samples(text, "bus_handled_seconds_count", { subject: paymentsSettle.subject, outcome: "payment_already_used" })[0]?.value).toBe(1);
  });

  it("board: the served snapshot's data age, computed at scrape time", async () => {
    const expected = (Date.now() - Date.parse("2026-11-20T09:55:00-08:00")) / 1000;
    const [first] = samples(await scrape(stack.board!.runtime.health.port), "board_snapshot_age_seconds", { service: "board" });
    expect(first!.value).toBeGreaterThan(expected - 30);
    expect(first!.value).toBeLessThan(expected + 30);
    await new Promise((r) => setTimeout(r, 1100));
    const [later] = samples(await scrape(stack.board!.runtime.health.port), "board_snapshot_age_seconds");
    expect(later!.value).toBeGreaterThan(first!.value);
  });

  it("identity and metering: their handlers by subject and outcome", async () => {
    // At least once: the gateway keeps a resolved key a few seconds, so reads of one key ask once.
    expect(samples(await scrape(stack.identity!.runtime.health.port), "bus_handled_seconds_count", { subject: identityResolve.subject, outcome: "ok" })[0]?.value).toBeGreaterThanOrEqual(1);
    expect(samples(await scrape(stack.metering!.runtime.health.port), "bus_handled_seconds_count", { subject: meteringConsumeMany.subject, outcome: "ok" })[0]?.value).toBeGreaterThanOrEqual(1);
  });
});

describe("a published snapshot's trace", () => {
  it("runs on into the board: its CONSUMER span is the child of the publish span, the snapshot's INSERT its child", async () => {
    // The publisher's span context (as the scanner's tick would have it); the test's own
    // connection records nothing itself but carries the active context into the headers.
    const traceId = randomBytes(16).toString("hex");
    const publisher = otel.trace.wrapSpanContext({ traceId, spanId: randomBytes(8).toString("hex"), traceFlags: otel.TraceFlags.SAMPLED });
    const snapshot = fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T10:00:00-08:00", seed: 3, intraday: true });
    await otel.context.with(otel.trace.setSpan(otel.context.active(), publisher), () => publishSnapshot(stack.nc, snapshot));
    let spans: ReadableSpan[] = [];
    await until(() => {
      spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
      return spans.some((s) => s.kind === otel.SpanKind.CONSUMER);
    });
    const consumer = spans.find((s) => s.kind === otel.SpanKind.CONSUMER)!;
    expect(serviceOf(consumer)).toBe("board");
    expect(consumer.name).toBe(`process ${SNAPSHOT_SUBJECT}`);
    expect(parentOf(consumer)).toBe(publisher.spanContext().spanId);
    const inserts = spans.filter((s) => parentOf(s) === idOf(consumer) && s.attributes["db.operation.name"] === "INSERT");
    expect(inserts.length, show(spans)).toBeGreaterThan(0);
  });
});
