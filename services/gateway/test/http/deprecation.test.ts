import http from "node:http";
import type { AddressInfo } from "node:net";
import { ROUTE_BY_PATH, ROUTES, type Route, type RouteDeprecation } from "@board/proto";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deprecatedRouteLines } from "../../src/discovery/deprecations.js";
import { openApiDocument } from "../../src/discovery/openapi.js";
import { CORS_EXPOSED_HEADERS, withCors } from "../../src/http/cors.js";
import { Exchange } from "../../src/http/exchange.js";
import { handleRoute, type RouteDeps } from "../../src/routing/routes.js";

// No route is deprecated today: these are catalogue entries marked deprecated here, answered by
// the gateway's own route handler (every answer goes through handleRoute).
const base = new URL("https://board.example.org");
const DEPRECATION: RouteDeprecation = { since: "2027-01-04T15:00:00Z", sunset: "2027-04-05T15:00:00Z", link: "/docs/versioning#deprecation" };
const deprecated = (path: string): Route => ({ ...ROUTE_BY_PATH.get(path)!, deprecation: DEPRECATION });
const metadata = deprecated("/.well-known/oauth-authorization-server");
const paid = deprecated("/api/board/name");
const plain = ROUTE_BY_PATH.get("/.well-known/oauth-protected-resource")!;

let server: http.Server;
let origin = "";

beforeAll(async () => {
  const app = express();
  // These answers need the public base URL only: the metadata document, a 405, a refused query.
  const deps = { publicBaseUrl: base } as RouteDeps;
  for (const route of [metadata, paid, plain]) app.all(route.path, (req, res) => void handleRoute(route, deps, Exchange.routed(req, res)));
  server = http.createServer(withCors(app));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

function expectDeprecationHeaders(res: Response) {
  const deprecation = res.headers.get("deprecation");
  expect(deprecation).toMatch(/^@\d+$/);
  expect(Number(deprecation!.slice(1)) * 1000).toBe(Date.parse(DEPRECATION.since));
  const sunset = res.headers.get("sunset");
  expect(sunset).toMatch(IMF_FIXDATE);
  expect(Date.parse(sunset!)).toBe(Date.parse(DEPRECATION.sunset));
  expect(res.headers.get("link")).toBe('<https://board.example.org/docs/versioning#deprecation>; rel="deprecation"; type="text/html"');
  // A page of another origin may read them.
  const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(", ");
  expect(exposed).toEqual(expect.arrayContaining(["deprecation", "sunset", "link"]));
}

describe("a deprecated route's answers", () => {
  it("carry Deprecation, Sunset and Link rel=deprecation on a 200", async () => {
    const res = await fetch(`${origin}${metadata.path}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { issuer: string }).issuer).toBe(base.origin);
    expectDeprecationHeaders(res);
  });

  it("and on its refusals: a method it does not take, a query it does not accept", async () => {
    const wrongMethod = await fetch(`${origin}${paid.path}?sym=AAPL`, { method: "DELETE" });
    expect(wrongMethod.status).toBe(405);
    expectDeprecationHeaders(wrongMethod);
    const badQuery = await fetch(`${origin}${paid.path}?sym=${"X".repeat(40)}`);
    expect(badQuery.status).toBe(400);
    expect(((await badQuery.json()) as { error: { code: string } }).error.code).toBe("invalid_query");
    expectDeprecationHeaders(badQuery);
  });

  it("but a route that is not deprecated carries none", async () => {
    const res = await fetch(`${origin}${plain.path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("deprecation")).toBeNull();
    expect(res.headers.get("sunset")).toBeNull();
    expect(res.headers.get("link")).toBeNull();
  });

  it("are exposed to pages of any origin", () => {
    expect(CORS_EXPOSED_HEADERS).toEqual(expect.arrayContaining(["Deprecation", "Sunset", "Link"]));
  });
});

describe("a deprecated route in the descriptions", () => {
  const routes = ROUTES.map((r) => (r.path === paid.path ? paid : r));
  const doc = openApiDocument(base, routes) as unknown as { paths: Record<string, Record<string, { deprecated?: boolean; description: string }>> };

  it("is deprecated in OpenAPI, with its dates and notice, and no other operation is", () => {
    const op = doc.paths[paid.path]!["get"]!;
    expect(op.deprecated).toBe(true);
    expect(op.description).toContain(DEPRECATION.sunset);
    expect(op.description).toContain(DEPRECATION.link);
    const others = Object.entries(doc.paths).flatMap(([path, item]) => Object.values(item).filter((o) => path !== paid.path && o.deprecated !== undefined));
    expect(others).toEqual([]);
    const today = openApiDocument(base) as unknown as typeof doc;
    expect(today.paths[paid.path]!["get"]!.deprecated).toBeUndefined();
  });

  it("is listed for /llms.txt with its sunset and notice; nothing is while no route is deprecated", () => {
    expect(deprecatedRouteLines(routes, base)).toEqual([
      `- [${paid.path}](https://board.example.org${paid.path}): Deprecated since ${DEPRECATION.since}; it may stop answering after ${DEPRECATION.sunset} (its answers carry Deprecation, Sunset and Link rel="deprecation"). Notice: https://board.example.org/docs/versioning#deprecation.`,
    ]);
    expect(deprecatedRouteLines(ROUTES, base)).toEqual([]);
  });
});
