import http, { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ROUTE_BY_PATH, type Route } from "@board/proto";
import express, { type Response } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exactRoutes } from "../../src/http/exact-routes.js";
import { Exchange } from "../../src/http/exchange.js";
import type { ObserveRequest } from "../../src/http/telemetry.js";

/** What each handled request looked like when it reached its route's handler. */
interface Seen {
  via: "exact" | "router";
  route: string;
  /** Still node's own request and response once the query was read. */
  bare: boolean;
  query: unknown;
  expressPath: string;
  originalUrl: string;
  observed: string | undefined;
}

const seen: Seen[] = [];
const failures: unknown[] = [];
let server: http.Server;
let base = "";

/** Answers through express (res.json) once it has looked at the exchange, or throws when asked to. */
function answer(via: Seen["via"], route: Route, x: Exchange, observed: string | undefined): Promise<void> {
  const query = x.query();
  const bare = Object.getPrototypeOf(x.req) === IncomingMessage.prototype && Object.getPrototypeOf(x.res) === ServerResponse.prototype;
  if (query && (query as Record<string, unknown>).fail === "1") return Promise.reject(new Error("handler failed"));
  const { req, res } = x.express();
  seen.push({ via, route: route.path, bare, query, expressPath: req.path, originalUrl: req.originalUrl, observed });
  res.status(200).json({ ok: true });
  return Promise.resolve();
}

beforeAll(async () => {
  const app = express();
  let observedPath: string | undefined;
  const observe: ObserveRequest = (_req, _res, path, _template, next) => {
    observedPath = path;
    next();
  };
  // The router's own path for the same routes: what exactRoutes must agree with.
  app.all("/api/board/regime", (req, res) => answer("router", ROUTE_BY_PATH.get("/api/board/regime")!, Exchange.routed(req, res), observedPath));
  app.use((_req, res) => res.status(404).end());
  const failed = (err: unknown, res: Response) => {
    failures.push(err);
    res.status(500).end();
  };
  server = http.createServer(exactRoutes(app, observe, (route, x) => answer("exact", route, x, observedPath), failed));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const get = async (path: string) => {
  seen.length = 0;
  const res = await fetch(`${base}${path}`);
  await res.arrayBuffer();
  return { status: res.status, seen: seen[0] };
};

describe("exactRoutes", () => {
  it("hands a catalogue path straight to its route with node's own request and response", async () => {
    const { status, seen } = await get("/api/board/regime");
    expect(status).toBe(200);
    expect(seen).toMatchObject({ via: "exact", route: "/api/board/regime", bare: true, query: {}, expressPath: "/api/board/regime", originalUrl: "/api/board/regime", observed: "/api/board/regime" });
  });

  it("gives a query the parse express gives it, on express's request", async () => {
    const { seen } = await get("/api/board/name?sym=AAPL,MSFT&x=1&x=2");
    expect(seen).toMatchObject({ via: "exact", route: "/api/board/name", bare: false, expressPath: "/api/board/name", originalUrl: "/api/board/name?sym=AAPL,MSFT&x=1&x=2" });
    expect({ ...(seen!.query as object) }).toEqual({ sym: "AAPL,MSFT", x: ["1", "2"] });
  });

  it("leaves other spellings of a path to express's router, which still finds the route", async () => {
    for (const path of ["/api/board/regime/", "/API/Board/Regime"]) {
      const { status, seen } = await get(path);
      expect(status, path).toBe(200);
      expect(seen?.via, path).toBe("router");
    }
    expect((await get("/api/board/nope")).status).toBe(404);
  });

  it("answers a handler's failure through the app's error handler, with express's response", async () => {
    failures.length = 0;
    const { status } = await get("/api/board/regime?fail=1");
    expect(status).toBe(500);
    expect(failures).toHaveLength(1);
  });
});
