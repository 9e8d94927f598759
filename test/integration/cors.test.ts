import http from "node:http";
import { identityLicenseIssue, ROUTES } from "@board/proto";
import { request } from "@board/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, CORS_REQUEST_HEADERS } from "../../services/gateway/src/http/cors.js";
import { Stack, until } from "./harness.js";

// Every answer of the gateway, whichever way it was made (node's own response for an entitled
// read, express for the rest, the router's 404, the MCP transport, the documents), carries the
// CORS headers; a preflight of any catalogued path is answered before its method is checked.

const stack = new Stack();
beforeAll(async () => {
  await stack.start();
  // No rail configured: the 402s still come from payments, with no offer to pay.
  await stack.startPayments();
});
afterAll(() => stack.stop());

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** node:http, so the request carries exactly the headers given (Origin included) and the answer's headers are as sent. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${stack.base}${path}`, { method, headers, agent: false }, (r) => {
      const chunks: Buffer[] = [];
      r.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const ORIGIN = "http://page.example:3000";
const EXPOSED = new Set(CORS_EXPOSED_HEADERS.map((n) => n.toLowerCase()));
/** What a page reads without CORS naming it (Fetch's safelisted response headers), and what no page needs to read. */
const READABLE_ANYWAY = new Set(["cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma"]);
const TRANSPORT = new Set(["date", "connection", "keep-alive", "transfer-encoding", "vary", "content-encoding", "content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy"]);

/** The CORS headers of a simple answer, and every header the answer carries readable by a page of another origin. */
function expectCors(r: Answer, label: string) {
  expect(r.headers["access-control-allow-origin"], label).toBe("*");
  expect(r.headers["access-control-expose-headers"], label).toBe(CORS_EXPOSED_HEADERS.join(", "));
  expect(r.headers["access-control-allow-credentials"], label).toBeUndefined();
  const hidden = Object.keys(r.headers).filter((n) => !n.startsWith("access-control-") && !READABLE_ANYWAY.has(n) && !TRANSPORT.has(n) && !EXPOSED.has(n));
  expect(hidden, `${label}: headers a page could not read`).toEqual([]);
}

describe("CORS on every answer", () => {
  it("an error before the board is up: 503 with Retry-After", async () => {
    const r = await send("GET", "/api/board/free", { origin: ORIGIN });
    expect(r.status).toBe(503);
    expect(r.headers["retry-after"]).toBe("5");
    expectCors(r, "503");
  });

  it("free reads: 200 with the freshness headers and ETag, 304, HEAD", async () => {
    await stack.startBoard();
    await stack.publishTwoDays();
    await stack.untilServing();
    const ok = await send("GET", "/api/board/free", { origin: ORIGIN });
    expect(ok.status).toBe(200);
    expect(ok.headers["x-board-data-age"]).toMatch(/^\d+$/);
    expectCors(ok, "200");
    const notModified = await send("GET", "/api/board/free", { origin: ORIGIN, "if-none-match": String(ok.headers.etag) });
    expect(notModified.status).toBe(304);
    expectCors(notModified, "304");
    const head = await send("HEAD", "/api/board/status", { origin: ORIGIN });
    expect(head.status).toBe(200);
    expectCors(head, "HEAD");
  });

  it("402s: a paid route with PAYMENT-REQUIRED and WWW-Authenticate readable, and the /api catalogue", async () => {
    const paid = await send("GET", "/api/board/regime", { origin: ORIGIN });
    expect(paid.status).toBe(402);
    expect(paid.headers["payment-required"]).toBeTruthy();
    expectCors(paid, "402");
    const catalogue = await send("GET", "/api", { origin: ORIGIN });
    expect(catalogue.status).toBe(402);
    expectCors(catalogue, "GET /api");
  });

  it("refusals: 400, 404 (no route), 405 with Allow, 401 with WWW-Authenticate, 403", async () => {
    const cases: [string, string, Record<string, string>, number][] = [
      ["GET", "/api/board/agent?preview=2", {}, 400],
      ["GET", "/api/board/nope", {}, 404],
      ["GET", "/nothing/here/", {}, 404],
      ["POST", "/api/board/free", {}, 405],
      ["GET", "/api/live/feed", {}, 401],
      ["GET", "/api/board/regime", { "x-board-key": "bfk_unknown" }, 403],
    ];
    for (const [method, path, headers, status] of cases) {
      const r = await send(method, path, { origin: ORIGIN, ...headers });
      expect(r.status, `${method} ${path}`).toBe(status);
      expectCors(r, `${method} ${path}`);
    }
  });

  it("entitled reads served with node's own response: a license (X-Board-Tier) and a free key (RateLimit-*)", async () => {
    const { key: license } = await request(stack.nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "cors test" }, { timeoutMs: 5000 });
    const licensed = await send("GET", "/api/board/regime", { origin: ORIGIN, "x-license-key": license });
    expect(licensed.status).toBe(200);
    expect(licensed.headers["x-board-tier"]).toBe("scanner_license");
    expectCors(licensed, "licensed 200");

    const issued = await send("POST", "/api/key", { origin: ORIGIN, "content-type": "application/json" }, JSON.stringify({ email: "cors@example.org" }));
    expect(issued.status).toBe(201);
    expectCors(issued, "POST /api/key");
    const { key } = JSON.parse(issued.body.toString()) as { key: string };
    const free = await send("GET", "/api/board/regime", { origin: ORIGIN, "x-board-key": key });
    expect(free.status).toBe(200);
    expect(free.headers["ratelimit-remaining"]).toMatch(/^\d+$/);
    expectCors(free, "free-key 200");
  });

  it("the MCP endpoint (its transport writes its own head), the documents and their 304, the page, OAuth", async () => {
    const rpc = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const mcp = await send("POST", "/mcp", { origin: ORIGIN, "content-type": "application/json", accept: "application/json, text/event-stream" }, rpc);
    expect(mcp.status).toBe(200);
    expectCors(mcp, "POST /mcp");
    const refused = await send("POST", "/mcp", { origin: ORIGIN, "content-type": "application/json", accept: "application/json" }, rpc);
    expect(refused.status).toBe(406);
    expectCors(refused, "POST /mcp 406");

    for (const path of ["/openapi.json", "/llms.txt", "/.well-known/api-catalog", "/.well-known/mcp/server-card.json"]) {
      const doc = await send("GET", path, { origin: ORIGIN });
      expect(doc.status, path).toBe(200);
      expectCors(doc, path);
      const again = await send("GET", path, { origin: ORIGIN, "if-none-match": String(doc.headers.etag) });
      expect(again.status, path).toBe(304);
      expectCors(again, `${path} 304`);
    }
    await until(async () => (await send("GET", "/")).status === 200);
    expectCors(await send("GET", "/", { origin: ORIGIN }), "GET /");
    const token = await send("POST", "/oauth/token", { origin: ORIGIN, "content-type": "application/x-www-form-urlencoded" }, "grant_type=password");
    expect(token.status).toBe(400);
    expectCors(token, "POST /oauth/token");
  });
});

describe("preflight", () => {
  const preflight = (path: string, method: string, headers: Record<string, string> = {}) =>
    send("OPTIONS", path, { origin: ORIGIN, "access-control-request-method": method, ...headers });

  it("is answered 204 on every catalogued route: the route's methods, the API's request headers, a day's max age", async () => {
    const asked = "payment-signature,access-control-expose-headers,x-board-key";
    for (const route of ROUTES) {
      const r = await preflight(route.path, route.methods[0]!, { "access-control-request-headers": asked });
      const label = route.path;
      expect(r.status, label).toBe(204);
      expect(r.body.length, label).toBe(0);
      expect(r.headers["access-control-allow-origin"], label).toBe("*");
      const methods = String(r.headers["access-control-allow-methods"]).split(", ");
      expect(methods, label).toEqual(expect.arrayContaining([...route.methods]));
      if (route.methods.includes("GET")) expect(methods, label).toContain("HEAD");
      expect(new Set(methods).size, label).toBe(methods.length);
      const allowed = String(r.headers["access-control-allow-headers"]).toLowerCase().split(", ");
      for (const h of asked.split(",")) expect(allowed, label).toContain(h);
      expect(r.headers["access-control-max-age"], label).toBe(String(CORS_MAX_AGE_SECONDS));
    }
  });

  it("names every request header the API reads, and the methods of a POST route", async () => {
    const token = await preflight("/oauth/token", "POST", { "access-control-request-headers": "content-type,authorization" });
    expect(token.status).toBe(204);
    expect(token.headers["access-control-allow-methods"]).toBe("POST");
    // MCP's session: GET for its stream and DELETE for its end, with its Mcp-Session-Id.
    const mcp = await preflight("/mcp", "DELETE", { "access-control-request-headers": "content-type,mcp-protocol-version,mcp-session-id,x-license-key" });
    expect(mcp.status).toBe(204);
    expect(mcp.headers["access-control-allow-methods"]).toBe("GET, POST, DELETE, HEAD");
    expect(mcp.headers["access-control-allow-headers"]).toBe(CORS_REQUEST_HEADERS.join(", "));
  });

  it("finds the route as the router does (another spelling of the path), and refuses a path outside the catalogue", async () => {
    const spelled = await preflight("/api/board/regime/", "GET");
    expect(spelled.status).toBe(204);
    expect(spelled.headers["access-control-allow-methods"]).toBe("GET, HEAD");
    const unknown = await preflight("/api/board/nope", "GET");
    expect(unknown.status).toBe(404);
    expectCors(unknown, "preflight 404");
  });

  it("an OPTIONS that is not a preflight keeps its 405 with Allow", async () => {
    const notPreflights: Record<string, string>[] = [{}, { origin: ORIGIN }, { "access-control-request-method": "GET" }];
    for (const headers of notPreflights) {
      const r = await send("OPTIONS", "/api/board/regime", headers);
      expect(r.status).toBe(405);
      expect(r.headers["allow"]).toBe("GET, HEAD");
      expect((JSON.parse(r.body.toString()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
      expectCors(r, "OPTIONS 405");
    }
  });
});
