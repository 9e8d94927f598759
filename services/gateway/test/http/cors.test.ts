import http, { type IncomingMessage, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { freshnessHeaders } from "@board/market-calendar";
import { ROUTE_BY_PATH, ROUTES } from "@board/proto";
import { describe, expect, it } from "vitest";
import { HEADERS } from "../../src/discovery/responses.js";
import { CORS_TERMS, CREDENTIALS } from "../../src/discovery/terms.js";
import { openApiDocument } from "../../src/discovery/openapi.js";
import { CREDENTIAL_HEADERS, requestHeader } from "../../src/http/headers.js";
import { answerPreflight, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, CORS_REQUEST_HEADERS, isPreflight, methodsOf, withCors } from "../../src/http/cors.js";

/** Response headers a browser lets any page read without being named (Fetch: CORS-safelisted response-header names). */
const SAFELISTED = ["cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma"];
const lower = (names: readonly string[]) => names.map((n) => n.toLowerCase());

/** Serves `listener` on a free port for one request; the answer's status and headers. */
async function exchange(listener: RequestListener, method: string, headers: Record<string, string> = {}) {
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    return await new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      http
        .request({ host: "127.0.0.1", port, method, path: "/api/board/regime", headers, agent: false }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        })
        .on("error", reject)
        .end();
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe("CORS header lists", () => {
  it("expose every response header the OpenAPI description declares, beyond the safelisted ones", () => {
    const exposed = new Set(lower(CORS_EXPOSED_HEADERS));
    // HEADERS names a header once per use ("WWW-Authenticate.Payment"); the header is the part before the dot.
    const declared = Object.keys(HEADERS).map((n) => n.split(".")[0]!.toLowerCase());
    const unreadable = declared.filter((n) => !n.startsWith("access-control-") && !SAFELISTED.includes(n) && !exposed.has(n));
    expect(unreadable).toEqual([]);
    for (const n of SAFELISTED) expect(exposed, n).not.toContain(n);
  });

  it("expose what browser payment clients read: offers, challenges, receipts of both x402 generations and MPP, limits, freshness", () => {
    // Named here, not derived, so a header dropped from http/headers.ts fails this test.
    const needed = ["PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE", "WWW-Authenticate", "Payment-Receipt", "Payment-Redelivery", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After", "ETag", "X-Board-Market-Open", "X-Board-Next-Refresh", "X-Board-Data-Age", "X-Board-Data-Delay", "X-Board-Tier", "Allow"];
    expect(lower(CORS_EXPOSED_HEADERS)).toEqual(expect.arrayContaining(lower(needed)));
  });

  it("expose the freshness headers a board read carries, as market-calendar names them", () => {
    const names = Object.keys(freshnessHeaders({ market_open: true, data_age_seconds: 1, next_refresh_at: "2026-11-20T15:00:00Z", poll_hint: "x" }));
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(lower(CORS_EXPOSED_HEADERS), n).toContain(n.toLowerCase());
  });

  it("allow every credential and payment header the API takes, and the ones browser payment clients add", () => {
    const allowed = lower(CORS_REQUEST_HEADERS);
    for (const c of CREDENTIALS) expect(allowed, c.scheme).toContain(c.header.toLowerCase());
    for (const n of ["payment-signature", "x-payment", "authorization", "x-board-key", "x-license-key", "sign-in-with-x", "content-type", "if-none-match", "access-control-expose-headers", "accept-payment", "mcp-protocol-version", "traceparent"])
      expect(allowed).toContain(n);
    // Each is named once, as a valid token (a browser compares them case-insensitively).
    expect(new Set(allowed).size).toBe(allowed.length);
    expect(new Set(lower(CORS_EXPOSED_HEADERS)).size).toBe(CORS_EXPOSED_HEADERS.length);
    for (const n of [...CORS_REQUEST_HEADERS, ...CORS_EXPOSED_HEADERS]) expect(n).toMatch(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/);
  });

  it("are stated in the OpenAPI description: its info, and each success response's headers", () => {
    const doc = openApiDocument(new URL("https://board.example.org")) as unknown as {
      info: { description: string };
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
      components: { headers: Record<string, { schema: { const?: string } }> };
    };
    expect(doc.info.description).toContain(CORS_TERMS);
    for (const n of [...CORS_EXPOSED_HEADERS, ...CORS_REQUEST_HEADERS]) expect(CORS_TERMS).toContain(n);
    expect(doc.components.headers["Access-Control-Expose-Headers"]?.schema.const).toBe(CORS_EXPOSED_HEADERS.join(", "));
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, r] of Object.entries(op.responses)) {
          if (!status.startsWith("2") && status !== "304") continue;
          expect(Object.keys(r.headers ?? {}), `${method} ${path} ${status}`).toEqual(expect.arrayContaining(["Access-Control-Allow-Origin", "Access-Control-Expose-Headers"]));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(ROUTES.length);
  });
});

describe("requestHeader", () => {
  it("reads a header by its canonical name from node's lowercased headers; empty or repeated is absent", () => {
    expect(requestHeader({ "payment-signature": "abc" }, CREDENTIAL_HEADERS.x402)).toBe("abc");
    expect(requestHeader({ "x-license-key": "" }, CREDENTIAL_HEADERS.license)).toBeUndefined();
    expect(requestHeader({ "x-board-key": ["a", "b"] }, CREDENTIAL_HEADERS.freeKey)).toBeUndefined();
    expect(requestHeader({}, CREDENTIAL_HEADERS.authorization)).toBeUndefined();
  });
});

describe("methodsOf", () => {
  it("names a route's methods once each, with HEAD wherever GET is", () => {
    expect(methodsOf(ROUTE_BY_PATH.get("/api/board/regime")!).header).toBe("GET, HEAD");
    expect(methodsOf(ROUTE_BY_PATH.get("/oauth/token")!).header).toBe("POST");
    expect(methodsOf(ROUTE_BY_PATH.get("/mcp")!).header).toBe("GET, POST, DELETE, HEAD");
    expect(methodsOf(ROUTE_BY_PATH.get("/.well-known/api-catalog")!).header).toBe("GET, HEAD");
    for (const r of ROUTES) expect(new Set(methodsOf(r).list).size, r.path).toBe(methodsOf(r).list.length);
  });
});

describe("withCors", () => {
  const EXPOSE = CORS_EXPOSED_HEADERS.join(", ");

  it("puts the headers on an answer written with setHeader and on one written with writeHead's own headers", async () => {
    const viaSet = await exchange(withCors((_req, res) => res.setHeader("ETag", '"a"').end("{}")), "GET");
    expect(viaSet.headers["access-control-allow-origin"]).toBe("*");
    expect(viaSet.headers["access-control-expose-headers"]).toBe(EXPOSE);
    expect(viaSet.headers["etag"]).toBe('"a"');
    // As the MCP transport answers (hono's node adapter): writeHead with a header object.
    const viaHead = await exchange(withCors((_req, res) => res.writeHead(202, { "content-type": "application/json" }).end()), "POST");
    expect(viaHead.status).toBe(202);
    expect(viaHead.headers["access-control-allow-origin"]).toBe("*");
    expect(viaHead.headers["access-control-expose-headers"]).toBe(EXPOSE);
    expect(viaHead.headers["access-control-allow-credentials"]).toBeUndefined();
  });
});

describe("preflight", () => {
  const route = ROUTE_BY_PATH.get("/api/board/regime")!;
  /** The listener the gateway's route handler is to this test: a preflight answered, anything else 405. */
  const listener = withCors((req: IncomingMessage, res) => {
    if (isPreflight(req)) return answerPreflight(route, res);
    res.statusCode = 405;
    res.end();
  });

  it("is answered 204 with the route's methods, the allowed headers and the max age", async () => {
    const r = await exchange(listener, "OPTIONS", { origin: "http://page.example", "access-control-request-method": "GET", "access-control-request-headers": "payment-signature,access-control-expose-headers" });
    expect(r.status).toBe(204);
    expect(r.headers["access-control-allow-origin"]).toBe("*");
    expect(r.headers["access-control-allow-methods"]).toBe("GET, HEAD");
    expect(r.headers["access-control-allow-headers"]).toBe(CORS_REQUEST_HEADERS.join(", "));
    expect(r.headers["access-control-max-age"]).toBe(String(CORS_MAX_AGE_SECONDS));
    expect(r.headers["content-length"]).toBeUndefined();
  });

  it("needs both Origin and Access-Control-Request-Method; any other OPTIONS is not one", async () => {
    expect((await exchange(listener, "OPTIONS")).status).toBe(405);
    expect((await exchange(listener, "OPTIONS", { origin: "http://page.example" })).status).toBe(405);
    expect((await exchange(listener, "OPTIONS", { "access-control-request-method": "GET" })).status).toBe(405);
    expect((await exchange(listener, "GET", { origin: "http://page.example", "access-control-request-method": "GET" })).status).toBe(405);
  });
});
