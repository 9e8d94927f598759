import { randomBytes } from "node:crypto";
import { BOARD_EVENTS_PATH, boardContentHash, BoardPublishedEvent, ErrorBody, identityLicenseIssue, MCP_LIVE_PATH, OAuthErrorCode, PAID_ROUTES, RegistrationErrorCode, ROUTES, SectorLabel, type ErrorCode, type LicenseIssueReply, type Route } from "@board/proto";
import { request } from "@board/service-kit";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { createSIWxPayload, encodeSIWxHeader, type SIWxExtension } from "@x402/extensions/sign-in-with-x";
import fc from "fast-check";
import { Challenge } from "mppx";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failuresOf } from "../../services/gateway/src/discovery/failures.js";
import { requestArb, type FuzzRequest, type Vocabulary } from "./fuzz-arbitraries.js";
import { Stack } from "./harness.js";

// Property-based fuzzing of the whole HTTP surface: every route of the catalogue, its query
// parameters and every credential header (and the POST bodies of the key, sign-in, token and
// MCP endpoints), against a stack with board, identity, metering and payments (Base on a
// local EVM chain, MPP), so paid routes answer real 402s and garbage payments are really
// verified. The oracle: no 5xx, every body readable, every error in its documented shape.

/** Fixed, so a CI run is reproducible; a failure names its lane's seed and fast-check's path. */
const SEED = 20_261_120;
/** Lanes run side by side (each its own fast-check run and seed) to keep the I/O-bound stack busy. */
const LANES = 8;
const TOTAL_RUNS = 10_400;
const RUNS_PER_LANE = Math.ceil(TOTAL_RUNS / LANES);

const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
// Generated per run: never a committed secret.
const MPP_SECRET_KEY = randomBytes(32).toString("base64");
let vocab: Vocabulary;

beforeAll(async () => {
  chain = await startEvmChain();
  // Burst limits lifted, so cases with a credential reach identity, metering and the board instead of a 429.
  await stack.start({ metering: { BURST_CAPACITY: "100000", BURST_PER_SECOND: "100000" } });
  await stack.startBoard();
  await stack.publishTwoDays({ live: true });
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex, MPP_SECRET_KEY });
  await stack.untilServing();
  vocab = await vocabulary();
}, 120_000);

afterAll(async () => {
  await stack.stop();
  await chain?.stop();
});

// ---------------------------------------------------------------------------------------------
// What the fuzzer builds valid and plausible values from: the served board, real keys, real 402s

async function json<T>(res: Response, status: number, what: string): Promise<T> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

async function vocabulary(): Promise<Vocabulary> {
  const base = stack.base;
  const issue = (kind: "scanner" | "live_feed"): Promise<LicenseIssueReply> => request(stack.nc, identityLicenseIssue, { kind, period: "monthly", holder: "fuzz" }, { timeoutMs: 5000 });
  const licenses = [await issue("scanner"), await issue("live_feed")];
  const clients = licenses.map((l) => ({ id: l.license.client_id, secret: l.key }));
  const bearers: string[] = [];
  for (const c of clients) {
    const body = new URLSearchParams({ grant_type: "client_credentials", client_id: c.id, client_secret: c.secret });
    const res = await fetch(`${base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    bearers.push((await json<{ access_token: string }>(res, 200, "token")).access_token);
  }
  const jwks = await json<{ keys: { kid?: string }[] }>(await fetch(`${base}/oauth/jwks`), 200, "jwks");
  const freeKeys: string[] = [];
  for (const email of ["fuzz-1@example.com", "fuzz-2@example.com", "fuzz-3@example.org"]) {
    const res = await fetch(`${base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email }) });
    freeKeys.push((await json<{ key: string }>(res, 201, "free key")).key);
  }
  const directory = await json<{ symbols: { sym: string }[] }>(await fetch(`${base}/api/board/symbols`), 200, "symbols");
  const sectors = await json<{ sectors: { sym: string }[] }>(await fetch(`${base}/api/board/sectors`, { headers: { "x-license-key": clients[0]!.secret } }), 200, "sectors");

  const offers = new Map<string, { accepts: Record<string, unknown>[]; resource: Record<string, unknown> }>();
  const mppChallenges = new Map<string, Challenge.Challenge>();
  let siwxInfo: SIWxExtension["info"] | undefined;
  const symbols = directory.symbols.map((s) => s.sym);
  for (const route of PAID_ROUTES) {
    // A query that sells the route, so the 402 is the route's own (not a 400).
    const query = new URLSearchParams(stack.sellingQuery(route)).toString();
    const res = await fetch(`${base}${route.path}${query ? `?${query}` : ""}`);
    await json<unknown>(res, 402, route.path);
    const offer = decodePaymentRequiredHeader(res.headers.get("payment-required")!);
    offers.set(route.path, { accepts: offer.accepts as unknown as Record<string, unknown>[], resource: offer.resource as unknown as Record<string, unknown> });
    mppChallenges.set(route.path, Challenge.fromResponse(res));
    siwxInfo ??= (offer.extensions?.["sign-in-with-x"] as SIWxExtension | undefined)?.info;
  }
  if (!siwxInfo) throw new Error("the 402 carries no sign-in-with-x challenge");
  const siwx: string[] = [];
  for (let i = 0; i < 2; i++) {
    const account = privateKeyToAccount(generatePrivateKey());
    const payload = await createSIWxPayload({ ...siwxInfo, chainId: "eip155:8453", type: "eip191" }, account, `${base}/api/board/regime`);
    siwx.push(encodeSIWxHeader(payload));
  }
  const etag = (await fetch(`${base}/api/board/free`)).headers.get("etag");
  return {
    base,
    symbols,
    etfs: sectors.sectors.map((s) => s.sym),
    sectors: SectorLabel.options,
    dates: stack.twoDays.map((d) => d.board.asof_daily),
    boardHashes: stack.twoDays.map((d) => boardContentHash(d.board as unknown as Record<string, unknown>)),
    freeKeys,
    licenseKeys: licenses.map((l) => l.key),
    clients,
    bearers,
    kids: jwks.keys.flatMap((k) => (k.kid ? [k.kid] : [])),
    siwx,
    siwxInfo: siwxInfo as unknown as Record<string, unknown>,
    offers,
    mppChallenges,
    etags: etag ? [etag] : [],
  };
}

// ---------------------------------------------------------------------------------------------
// Sending, and the oracle

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function send(r: FuzzRequest): Promise<Answer> {
  const url = `${vocab.base}${r.path}${r.query === null ? "" : `?${r.query}`}`;
  const stop = new AbortController();
  const res = await fetch(url, { method: r.method, headers: r.headers, body: r.body, redirect: "manual", signal: AbortSignal.any([stop.signal, AbortSignal.timeout(20_000)]) });
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) return { status: res.status, headers: res.headers, text: await res.text() };
  // An event stream never ends: read it up to its first event (or its end), then hang up.
  let text = "";
  const decoder = new TextDecoder();
  const reader = res.body?.getReader();
  while (reader && !/\ndata: .*\n\n/.test(text)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  stop.abort();
  return { status: res.status, headers: res.headers, text };
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}... (${s.length} chars)` : s);

/** The request and the answer, as a failure shows them. */
function describeCase(r: FuzzRequest, a: Answer | null, problem: string): string {
  const headers = Object.entries(r.headers).map(([k, val]) => `    ${k}: ${JSON.stringify(cut(val, 120))}`);
  const lines = [
    problem,
    `  request: ${r.method} ${cut(`${r.path}${r.query === null ? "" : `?${r.query}`}`, 400)}  (route ${r.route})`,
    ...(headers.length > 0 ? ["  headers:", ...headers] : []),
    ...(r.body !== undefined ? [`  body: ${JSON.stringify(cut(r.body, 300))}`] : []),
  ];
  if (a) {
    lines.push(`  answer: ${a.status} ${a.headers.get("content-type") ?? "(no content-type)"}`);
    lines.push(`  body: ${cut(a.text, 600)}`);
  }
  return lines.join("\n");
}

const ROUTE_BY_PATH = new Map(ROUTES.map((r) => [r.path, r]));
const OAUTH_CODES = new Set<string>(OAuthErrorCode.options);

/** The reason codes (and their statuses) a route documents (the OpenAPI document is generated from the same list). */
function documented(route: Route): Map<ErrorCode, Set<number>> {
  const codes = new Map<ErrorCode, Set<number>>();
  for (const f of failuresOf(route)) codes.set(f.code, (codes.get(f.code) ?? new Set()).add(f.status));
  return codes;
}
const DOCUMENTED = new Map(ROUTES.map((r) => [r.path, documented(r)]));

/** A route's list parameters (sym): those that take a value given more than once as one list. */
const listParams = (route: Route) =>
  new Set(Object.entries(route.query.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>).filter(([, field]) => field.safeParse(["A", "B"]).success).map(([name]) => name));
const LIST_PARAMS = new Map(ROUTES.map((r) => [r.path, listParams(r)]));

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** What is wrong with an answer, or null. */
function verdict(r: FuzzRequest, a: Answer): string | null {
  const route = ROUTE_BY_PATH.get(r.route)!;
  if (a.status >= 500) return `a ${a.status}`;
  const allowed: string[] = route.methods.includes("GET") ? [...route.methods, "HEAD"] : [...route.methods];
  if (r.method === "HEAD") return a.text === "" ? null : "a HEAD answer with a body";
  if (a.status === 204 || a.status === 304) return a.text === "" ? null : `a ${a.status} with a body`;
  const type = (a.headers.get("content-type") ?? "").toLowerCase();
  if (type.startsWith("text/event-stream")) return eventStream(route, a);
  // The sign-in's refusals are pages for the person at the browser (a client that cannot be trusted is never redirected to).
  if (route.path === "/oauth/authorize" && type.startsWith("text/html") && (a.status === 400 || a.status === 403)) {
    return a.headers.get("content-security-policy")?.includes("default-src 'none'") ? null : "a sign-in page without its CSP";
  }
  let body: unknown = undefined;
  if (/[/+]json\b/.test(type)) {
    try {
      body = JSON.parse(a.text);
    } catch {
      return `a ${type} body that does not parse`;
    }
  } else if (a.status >= 400) return `an error answered as ${type || "no content type"}, not JSON`;

  if (a.status < 400) return a.status >= 200 && a.status < 300 ? servedWithoutEntitlement(r, route, a) : `an unexpected ${a.status}`;

  // The documented exceptions to the one error shape.
  // Express matches paths case-insensitively and with or without a trailing slash; other spellings match no route.
  const variantPath = (r.path.length > 1 ? r.path.replace(/\/$/, "") : r.path).toLowerCase() !== route.path;
  const ownMethod = allowed.includes(r.method);
  if (ownMethod && !variantPath) {
    if (route.kind === "paid" && a.status === 402) return paymentRequired(route, a, type, body);
    if (route.path === "/api" && a.status === 402) return isObject(body) && body["x402Version"] === 2 && Array.isArray(body["routes"]) ? null : "the /api 402 is not the offer catalogue";
    if (route.path === "/oauth/register" && a.status === 400) {
      if (!isObject(body) || !RegistrationErrorCode.safeParse(body["error"]).success) return "not an RFC 7591 error body";
      return a.headers.get("cache-control")?.includes("no-store") ? null : "an RFC 7591 error without Cache-Control: no-store";
    }
    if (route.path === "/oauth/token") {
      if (!isObject(body) || typeof body["error"] !== "string" || !OAUTH_CODES.has(body["error"])) return "not an RFC 6749 error body";
      if (body["error_description"] !== undefined && typeof body["error_description"] !== "string") return "error_description is not a string";
      return a.headers.get("cache-control")?.includes("no-store") ? null : "an RFC 6749 error without Cache-Control: no-store";
    }
    // /mcp/live refuses a request without its bearer before reading JSON-RPC: the API's error body, as documented.
    if (route.kind === "mcp" && !(route.path === MCP_LIVE_PATH && (a.status === 401 || a.status === 403))) {
      const error = isObject(body) ? body["error"] : undefined;
      return isObject(body) && body["jsonrpc"] === "2.0" && isObject(error) && typeof error["code"] === "number" && typeof error["message"] === "string" ? null : "not a JSON-RPC error";
    }
  }

  const parsed = ErrorBody.safeParse(body);
  if (!parsed.success) return `not the error shape: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`;
  const { code, status } = parsed.data.error;
  if (status !== a.status) return `error.status ${status} on an HTTP ${a.status}`;
  // A path spelling no route matches is a 404 whatever the method.
  if (variantPath && code === "not_found" && a.status === 404) return null;
  if (!ownMethod) {
    if (code !== "method_not_allowed" || a.status !== 405) return `${code} where 405 method_not_allowed is due`;
    return a.headers.get("allow") ? null : "a 405 without Allow";
  }
  // sym=A&sym=B is the list A,B: a list parameter is never refused for being repeated (any other is).
  if (code === "invalid_query" && LIST_PARAMS.get(route.path)!.has(parsed.data.error.param ?? "") && parsed.data.error.message.endsWith("must be given once.")) {
    return `list parameter ${parsed.data.error.param} refused for being repeated`;
  }
  const statuses = DOCUMENTED.get(route.path)!.get(code);
  if (!statuses?.has(a.status)) return `${a.status} ${code} is not documented for ${route.path}`;
  if ((a.status === 429 || a.status === 503) && !a.headers.get("retry-after")) return `a ${a.status} without Retry-After`;
  if (code === "token_invalid" && !/^Bearer /.test(a.headers.get("www-authenticate") ?? "")) return "a refused bearer without WWW-Authenticate: Bearer";
  return null;
}

/** A paid route's 402: x402's v1-dialect body with the v2 requirements, or MPP's problem+json for a refused MPP credential. */
function paymentRequired(route: Route, a: Answer, type: string, body: unknown): string | null {
  if (!isObject(body)) return "a 402 body that is not an object";
  const codes402 = new Set([...DOCUMENTED.get(route.path)!].filter(([, s]) => s.has(402)).map(([c]) => c as string));
  const header = a.headers.get("payment-required");
  if (!header) return "a 402 without PAYMENT-REQUIRED";
  try {
    if (decodePaymentRequiredHeader(header).x402Version !== 2) return "PAYMENT-REQUIRED is not x402 v2";
  } catch {
    return "PAYMENT-REQUIRED does not decode";
  }
  if (type.startsWith("application/problem+json")) {
    if (typeof body["type"] !== "string" || typeof body["title"] !== "string") return "a problem+json without type and title";
    return typeof body["code"] === "string" && codes402.has(body["code"]) ? null : `problem+json code ${String(body["code"])} is not a documented 402 code`;
  }
  if (body["x402Version"] !== 1 || !Array.isArray(body["accepts"]) || !isObject(body["v2"])) return "a 402 without x402Version 1, accepts and v2";
  if (typeof body["error"] !== "string" || !codes402.has(body["error"])) return `402 error ${String(body["error"])} is not a documented 402 code`;
  return typeof body["message"] === "string" ? null : "a 402 without message";
}

/** An event stream: only the feed's, a 200 opening with its retry delay, then events whose data is a published board (its id the board's seq). */
function eventStream(route: Route, a: Answer): string | null {
  if (route.path !== BOARD_EVENTS_PATH || a.status !== 200) return `an event stream from ${route.path} with ${a.status}`;
  if (!/^retry: \d+\n\n/.test(a.text)) return "an event stream that does not open with its retry delay";
  for (const block of a.text.split("\n\n").filter((b) => b.includes("data: "))) {
    const [id, data] = block.split("\n");
    let json: unknown = null;
    try {
      json = JSON.parse(data?.slice("data: ".length) ?? "null");
    } catch {
      return `event data that does not parse: ${cut(block, 200)}`;
    }
    const event = BoardPublishedEvent.safeParse(json);
    if (!event.success || id !== `id: ${event.data.seq}`) return `an event that is not a published board under its seq: ${cut(block, 200)}`;
  }
  return null;
}

/** A 2xx of a paid or live route must say what it was served on: a tier, a settled payment, or the free variant. */
function servedWithoutEntitlement(r: FuzzRequest, route: Route, a: Answer): string | null {
  if (route.kind !== "paid" && route.kind !== "live") return null;
  if (a.headers.get("x-board-tier") || a.headers.get("payment-response") || a.headers.get("payment-receipt")) return null;
  const free = route.freeVariant;
  if (free && new URLSearchParams(r.query ?? "").getAll(free.param).includes(free.value)) return null;
  return `a ${a.status} of ${route.kind} route ${route.path} with no tier, no receipt and not its free variant`;
}

/** The reason code an error answer carries (for the run's summary of what was reached). */
function reasonOf(a: Answer): string {
  if (a.status < 400) return "";
  try {
    const body = JSON.parse(a.text) as Json;
    const error = body["error"];
    const code = isObject(error) ? error["code"] : typeof error === "string" ? error : body["code"];
    const mpp = (a.headers.get("content-type") ?? "").startsWith("application/problem+json") ? " (problem+json)" : "";
    return typeof code === "string" || typeof code === "number" ? ` ${code}${mpp}` : "";
  } catch {
    return "";
  }
}

// ---------------------------------------------------------------------------------------------

describe("fuzzing every route, query parameter and credential header", () => {
  const statuses = new Map<string, number>();
  let sent = 0;

  it(`answers ${TOTAL_RUNS} generated requests with no 5xx and every error in its documented shape`, async () => {
    const started = performance.now();
    const arb = requestArb(ROUTES, vocab);
    let failedLane: number | null = null;
    const lane = (n: number) =>
      fc.assert(
        fc.asyncProperty(arb, async (r) => {
          // Once a lane fails, the others stop sending, so its shrinking runs alone.
          if (failedLane !== null && failedLane !== n) return;
          sent++;
          let answer: Answer | null = null;
          let problem: string | null;
          try {
            answer = await send(r);
            problem = verdict(r, answer);
          } catch (err) {
            problem = `the request failed: ${String(err)}${err instanceof Error && err.cause ? ` (${String(err.cause)})` : ""}`;
          }
          if (answer) {
            const stream = answer.headers.get("content-type")?.startsWith("text/event-stream") ? " (event stream)" : "";
            const key = `${ROUTE_BY_PATH.get(r.route)!.kind} ${answer.status}${reasonOf(answer)}${stream}`;
            statuses.set(key, (statuses.get(key) ?? 0) + 1);
          }
          if (problem) {
            failedLane ??= n;
            throw new Error(describeCase(r, answer, `lane ${n} (seed ${SEED + n}): ${problem}`));
          }
        }),
        { numRuns: RUNS_PER_LANE, seed: SEED + n },
      );
    const results = await Promise.allSettled(Array.from({ length: LANES }, (_, n) => lane(n)));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `fuzz: ${LANES} lanes x ${RUNS_PER_LANE} runs, ${sent} requests in ${seconds} s; answers by route kind and status:\n` +
        [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `  ${k}: ${n}`).join("\n"),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    expect(sent).toBeGreaterThanOrEqual(LANES * RUNS_PER_LANE);
  }, 240_000);

  it("leaves every service healthy and ready, and serves normal reads afterwards", async () => {
    const services = { gateway: stack.gateway, board: stack.board, identity: stack.identity, metering: stack.metering, payments: stack.payments };
    for (const [name, service] of Object.entries(services)) {
      expect(service, name).toBeTruthy();
      for (const probe of ["/healthz", "/readyz"]) {
        const res = await fetch(`http://127.0.0.1:${service!.runtime.health.port}${probe}`);
        expect(res.status, `${name} ${probe}: ${await res.text()}`).toBe(200);
      }
    }
    const free = await fetch(`${stack.base}/api/board/free`);
    expect(free.status).toBe(200);
    expect(((await free.json()) as { asof_daily?: string }).asof_daily).toBeTruthy();
    const licensed = await fetch(`${stack.base}/api/board/buylist`, { headers: { "x-license-key": vocab.licenseKeys[0]! } });
    expect(licensed.status).toBe(200);
    await licensed.arrayBuffer();
    const paid = await fetch(`${stack.base}/api/board/regime`);
    expect(paid.status).toBe(402);
    expect(verdict({ route: "/api/board/regime", method: "GET", path: "/api/board/regime", query: null, headers: {} }, { status: paid.status, headers: paid.headers, text: await paid.text() })).toBeNull();
  });
});
