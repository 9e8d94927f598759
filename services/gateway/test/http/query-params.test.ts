import http from "node:http";
import type { AddressInfo } from "node:net";
import { ROUTE_BY_PATH, viewFor } from "@board/proto";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Exchange } from "../../src/http/exchange.js";
import { stringParams } from "../../src/http/query-params.js";
import { ViewTemplates } from "../../src/http/view-templates.js";

// The gateway's own parse of a request's query (Exchange.query: express's parser), then what
// the board is asked for and what a kept view is keyed by: every spelling of one list must
// come out the same.
let server: http.Server;
let base = "";

beforeAll(async () => {
  const app = express();
  app.get("/{*path}", (req, res) => res.json(Exchange.routed(req, res).query()));
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** What the board would be asked for (view and params) and the kept view's key, or the first refusal. */
async function asked(path: string, query: string) {
  const route = ROUTE_BY_PATH.get(path)!;
  const raw: unknown = await (await fetch(`${base}${path}?${query}`)).json();
  const parsed = route.query.safeParse(raw);
  if (!parsed.success) return { refused: parsed.error.issues[0]?.message };
  const params = stringParams(parsed.data);
  const { view } = viewFor(route, parsed.data);
  return { view, params, key: ViewTemplates.key(view!, params, "gzip") };
}

describe("list parameters through the gateway's query parse", () => {
  it.each(["/api/board/name", "/api/board/hold", "/api/board/name/history", "/api/live/setup"])("%s: comma, repeated and mixed spellings ask the board the same", async (path) => {
    const comma = await asked(path, "sym=aapl,MSFT");
    expect(comma).toMatchObject({ params: { sym: "AAPL,MSFT" } });
    for (const other of ["sym=AAPL&sym=msft", "sym=%20aapl%20&sym=MSFT", "sym=AAPL,&sym=MSFT", "sym=AAPL%2CMSFT"]) expect(await asked(path, other), other).toEqual(comma);
    expect(await asked(path, "sym=aapl,msft&sym=nvda")).toMatchObject({ params: { sym: "AAPL,MSFT,NVDA" } });
  });

  it("refuses more than ten the same way in every spelling", async () => {
    const syms = Array.from({ length: 11 }, (_, i) => `S${i}`);
    for (const query of [`sym=${syms.join(",")}`, syms.map((s) => `sym=${s}`).join("&"), `sym=${syms.slice(0, 6).join(",")}&${syms.slice(6).map((s) => `sym=${s}`).join("&")}`]) {
      expect(await asked("/api/board/name", query), query).toEqual({ refused: "at most 10 symbols per read" });
    }
  });

  it("keeps refusing any other parameter given twice", async () => {
    expect(await asked("/api/board/name/history", "sym=AAPL&days=5&days=5")).toEqual({ refused: "must be given once" });
    expect(await asked("/api/board/agent", "preview=1&preview=1")).toEqual({ refused: "must be given once" });
  });
});
