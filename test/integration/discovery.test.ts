import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { BOARD_EVENTS_PATH, MCP_TOOLS, PAID_ROUTES, ROUTES } from "@board/proto";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Challenge } from "mppx";
import { validate as validateDiscovery } from "mppx/discovery";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule, { type FormatsPlugin } from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_CATALOG_TYPE, Linkset } from "../../services/gateway/src/discovery/api-catalog.js";
import { usdc } from "../../services/gateway/src/discovery/terms.js";
import { Stack } from "./harness.js";

const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
// Generated per run: never a committed secret.
const MPP_SECRET_KEY = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
  "x-payment-info"?: { offers: { amount: string; currency: string; method: string; intent: string }[] };
  "x-x402"?: { accepts: { network: string; asset: string; amount: string; extra?: { name: string } }[] };
}
interface OpenApi {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
}

let doc: OpenApi;
let docResponse: Response;
let ajv: Ajv2020;
// ajv-formats is CommonJS: its default export arrives as the module object under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as FormatsPlugin;

beforeAll(async () => {
  chain = await startEvmChain();
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex, MPP_SECRET_KEY });
  await stack.untilServing();
  docResponse = await fetch(`${stack.base}/openapi.json`);
  doc = (await docResponse.clone().json()) as OpenApi;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi.json");
}, 90_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
});

/** Validates a body against an operation's documented response schema, resolving its $refs in the served document. */
function conforms(path: string, status: string, body: unknown, type = "application/json", method = "get"): unknown[] {
  const media = doc.paths[path]?.[method]?.responses[status]?.content?.[type];
  if (!media) throw new Error(`${method} ${path} documents no ${status} ${type} body`);
  const pointer = `openapi.json#/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}/responses/${status}/content/${type.replace(/~/g, "~0").replace(/\//g, "~1")}/schema`;
  return ajv.validate({ $ref: pointer }, body) ? [] : (ajv.errors ?? ["invalid"]);
}

const run = promisify(execFile);

describe("GET /openapi.json", () => {
  it("serves an OpenAPI 3.1.0 document, version 1.1.0, cacheable, with its ETag", async () => {
    expect(docResponse.status).toBe(200);
    expect(docResponse.headers.get("content-type")).toMatch(/^application\/json/);
    expect(docResponse.headers.get("cache-control")).toMatch(/public, max-age=\d+/);
    expect(docResponse.headers.get("link")).toBe(`<${stack.base}/.well-known/api-catalog>; rel="api-catalog"`);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.1.0");
    const etag = docResponse.headers.get("etag")!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${stack.base}/openapi.json`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    // Sent gzipped to clients that take it (fetch does), plain otherwise: two representations, two ETags.
    expect(docResponse.headers.get("content-encoding")).toBe("gzip");
    const plain = await fetch(`${stack.base}/openapi.json`, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("etag")).not.toBe(etag);
    expect(await plain.json()).toEqual(doc);
  });

  it("is valid for @seriousme/openapi-schema-validator", async () => {
    const result = await new Validator().validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("passes redocly lint with no errors", async () => {
    const dir = await mkdtemp(join(tmpdir(), "openapi-"));
    try {
      await writeFile(join(dir, "openapi.json"), JSON.stringify(doc));
      // Two style rules do not fit this API: documents never answer 4xx, GET /api is always 402 and /oauth/authorize always refuses.
      await writeFile(join(dir, "redocly.yaml"), "extends:\n  - recommended\nrules:\n  operation-4xx-response: off\n  operation-2xx-response: off\n");
      const redocly = createRequire(import.meta.url).resolve("@redocly/cli/bin/cli.js");
      const { stdout } = await run(process.execPath, [redocly, "lint", "openapi.json", "--config", "redocly.yaml", "--format=json"], {
        cwd: dir,
        env: { REDOCLY_TELEMETRY: "off", HOME: dir },
        maxBuffer: 64 * 1024 * 1024,
      });
      const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
      expect(report.problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
      // The recommended rules as they are: warnings at most, never an error (exit 0).
      const plain = await run(process.execPath, [redocly, "lint", "openapi.json", "--format=json"], { cwd: dir, env: { REDOCLY_TELEMETRY: "off", HOME: dir }, maxBuffer: 64 * 1024 * 1024 });
      expect((JSON.parse(plain.stdout) as { totals: { errors: number } }).totals.errors).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("documents every route the gateway serves, with its methods, and nothing else", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(ROUTES.flatMap((r) => r.methods.map((m) => `${m} ${r.path}`)).sort());
  });

  it("every documented operation is answered (never 404 or 405), HEAD too on GET routes; other paths are 404, other methods 405", async () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) {
        const res = await fetch(`${stack.base}${path}`, { method: method.toUpperCase(), ...(method === "post" ? { headers: { "content-type": "application/json" }, body: "{}" } : {}) });
        // An event stream stays open: its answer is the status and headers; the body is read below.
        if (res.headers.get("content-type")?.startsWith("text/event-stream")) await res.body?.cancel();
        else await res.arrayBuffer();
        expect([404, 405], `${method} ${path} -> ${res.status}`).not.toContain(res.status);
        if (method === "get") {
          const head = await fetch(`${stack.base}${path}`, { method: "HEAD" });
          expect([404, 405], `HEAD ${path} -> ${head.status}`).not.toContain(head.status);
        }
      }
    }
    for (const path of ["/api/board/nope", "/api/live", "/openapi.yaml", "/.well-known/openid-configuration"]) {
      const res = await fetch(`${stack.base}${path}`);
      expect(res.status, path).toBe(404);
      expect(conforms("/api/board/free", "500", await res.json()).length).toBeGreaterThan(0); // a 404 is not a documented 500
    }
    expect((await fetch(`${stack.base}/api/board/free`, { method: "DELETE" })).status).toBe(405);
    expect((await fetch(`${stack.base}/openapi.json`, { method: "POST" })).status).toBe(405);
  }, 60_000);

  it("carries payment info mppx's discovery validator accepts, matching the service's real 402", async () => {
    expect(validateDiscovery(doc)).toEqual([]);
    for (const route of PAID_ROUTES) expect(doc.paths[route.path]?.["get"]?.["x-payment-info"]?.offers[0]?.amount).toBe(String(route.price));

    const res = await fetch(`${stack.base}/api/board/regime`);
    expect(res.status).toBe(402);
    const challenge = Challenge.fromResponse(res);
    const info = doc.paths["/api/board/regime"]!["get"]!["x-payment-info"]!.offers[0]!;
    expect({ method: challenge.method, intent: challenge.intent }).toEqual({ method: info.method, intent: info.intent });
    expect(challenge.request).toMatchObject({ amount: info.amount, currency: info.currency });

    const body = await res.json();
    expect(conforms("/api/board/regime", "402", body)).toEqual([]);
    const v2 = JSON.parse(Buffer.from(res.headers.get("payment-required")!, "base64").toString("utf8")) as { accepts: { network: string; asset: string; amount: string }[] };
    const documented = doc.paths["/api/board/regime"]!["get"]!["x-x402"]!.accepts.find((a) => a.network === "eip155:8453" && !a.extra)!;
    expect(v2.accepts).toContainEqual(expect.objectContaining({ network: documented.network, asset: documented.asset, amount: documented.amount }));
  });
});

describe("served bodies match their documented schemas", () => {
  it("the free reads", async () => {
    for (const path of ["/api/board/free", "/api/board/symbols", "/api/board/status", "/api/board/state"]) {
      const res = await fetch(`${stack.base}${path}`);
      expect(res.status, path).toBe(200);
      expect(conforms(path, "200", await res.json()), path).toEqual([]);
    }
    const preview = await fetch(`${stack.base}/api/board/agent?preview=1`);
    expect(conforms("/api/board/agent", "200", await preview.json())).toEqual([]);
  });

  it("the event stream: each event's fields, its data a published board", async () => {
    const res = await fetch(`${stack.base}${BOARD_EVENTS_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = "";
    while (!/\ndata: .*\n\n/.test(text)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended after: ${text}`);
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const block = text.split("\n\n").find((b) => b.includes("data: "))!;
    const fields = Object.fromEntries(block.split("\n").map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)]));
    const event = { id: fields["id"], data: JSON.parse(fields["data"]!) as unknown };
    expect(conforms(BOARD_EVENTS_PATH, "200", event, "text/event-stream")).toEqual([]);
    expect(conforms(BOARD_EVENTS_PATH, "200", { ...event, data: { ...(event.data as object), surprise: 1 } }, "text/event-stream").length).toBeGreaterThan(0);
  });

  it("a free-tier read, with its tier block", async () => {
    const key = await fetch(`${stack.base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "discovery@example.org" }) });
    expect(key.status).toBe(201);
    const issued = await key.json();
    expect(conforms("/api/key", "201", issued, "application/json", "post")).toEqual([]);
    const res = await fetch(`${stack.base}/api/board/regime`, { headers: { "x-board-key": (issued as { key: string }).key } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { tier?: unknown };
    expect(body.tier).toBeDefined();
    expect(conforms("/api/board/regime", "200", body)).toEqual([]);
    expect(conforms("/api/board/regime", "200", { ...body, surprise: 1 }).length).toBeGreaterThan(0);
  });

  it("errors, the offer catalogue and the token endpoint's refusal", async () => {
    const badQuery = await fetch(`${stack.base}/api/board/name`);
    expect(badQuery.status).toBe(400);
    expect(conforms("/api/board/name", "400", await badQuery.json())).toEqual([]);
    const live = await fetch(`${stack.base}/api/live/feed`);
    expect(live.status).toBe(401);
    expect(conforms("/api/live/feed", "401", await live.json())).toEqual([]);
    const catalogue = await fetch(`${stack.base}/api`);
    expect(catalogue.status).toBe(402);
    expect(conforms("/api", "402", await catalogue.json())).toEqual([]);
    const token = await fetch(`${stack.base}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=password" });
    expect(token.status).toBe(400);
    expect(conforms("/oauth/token", "400", await token.json(), "application/json", "post")).toEqual([]);
  });
});

describe("/.well-known/api-catalog", () => {
  it("answers GET with an RFC 9727 linkset and its Link header", async () => {
    const res = await fetch(`${stack.base}/.well-known/api-catalog`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(API_CATALOG_TYPE);
    expect(res.headers.get("link")).toBe(`<${stack.base}/.well-known/api-catalog>; rel="api-catalog"`);
    const body = await res.json();
    expect(conforms("/.well-known/api-catalog", "200", body, API_CATALOG_TYPE)).toEqual([]);
    const catalog = Linkset.parse(body);
    const hrefs = catalog.linkset.flatMap((c) => Object.entries(c).flatMap(([k, v]) => (k === "anchor" ? [] : (v as { href: string }[]).map((l) => l.href))));
    for (const href of [`${stack.base}/openapi.json`, `${stack.base}/llms.txt`, `${stack.base}/api/board/status`, `${stack.base}/.well-known/mcp/server-card.json`]) expect(hrefs).toContain(href);
    for (const href of new Set(hrefs)) {
      const target = await fetch(href, { method: href.endsWith("/mcp") ? "POST" : "GET" });
      await target.arrayBuffer();
      expect([404, 405], href).not.toContain(target.status);
    }
  });

  it("answers HEAD with the same headers and no body", async () => {
    const res = await fetch(`${stack.base}/.well-known/api-catalog`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(API_CATALOG_TYPE);
    expect(res.headers.get("link")).toBe(`<${stack.base}/.well-known/api-catalog>; rel="api-catalog"`);
    expect(Number(res.headers.get("content-length"))).toBeGreaterThan(0);
    expect(await res.text()).toBe("");
  });
});

describe("GET /llms.txt", () => {
  it("has the llmstxt.org structure and every paid route with its price", async () => {
    const res = await fetch(`${stack.base}/llms.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/(markdown|plain); charset=utf-8$/);
    const text = await res.text();
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines[2]).toMatch(/^> \S/);
    const h2 = lines.filter((l) => l.startsWith("## "));
    expect(h2.length).toBeGreaterThan(5);
    for (const route of PAID_ROUTES) {
      const line = lines.find((l) => l.startsWith(`- [${route.path}](${stack.base}${route.path}`));
      expect(line, route.path).toBeDefined();
      expect(line).toContain(`${usdc(route.price!)} USDC`);
    }
    for (const tool of MCP_TOOLS) expect(text).toContain(tool.name);
  });
});

describe("the MCP server card", () => {
  it("lists every MCP tool, the same as the server's tools/list", async () => {
    const client = new Client({ name: "discovery-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.base}/mcp`)));
    const listed = (await client.listTools()).tools.map((t) => t.name);
    await client.close();
    for (const path of ["/.well-known/mcp/server-card.json", "/.well-known/mcp/server-card"]) {
      const res = await fetch(`${stack.base}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const card = (await res.json()) as { tools: { name: string }[]; remotes: { url: string; headers: { name: string; isRequired: boolean; isSecret: boolean }[] }[] };
      expect(conforms(path, "200", card)).toEqual([]);
      expect(card.tools.map((t) => t.name)).toEqual([...MCP_TOOLS.map((t) => t.name), "get_price"]);
      expect(card.tools.map((t) => t.name).sort()).toEqual([...listed].sort());
      expect(card.remotes[0]?.url).toBe(`${stack.base}/mcp`);
      expect(card.remotes[0]?.headers).toContainEqual(expect.objectContaining({ name: "X-License-Key", isRequired: false, isSecret: true }));
    }
    const typed = await fetch(`${stack.base}/.well-known/mcp/server-card`, { headers: { accept: "application/mcp-server-card+json" } });
    expect(typed.headers.get("content-type")).toBe("application/mcp-server-card+json");
  });
});
