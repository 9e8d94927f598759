import { describe, expect, it } from "vitest";
import { neededParams, ROUTE_BY_PATH, ROUTES, viewFor } from "../src/routes/catalogue.js";

const SPEC_PAID: Record<string, number> = {
  "/api/board/agent": 250000,
  "/api/board/regime": 5000,
  "/api/board/buylist": 20000,
  "/api/board/indices": 5000,
  "/api/board/sectors": 10000,
  "/api/board/top-volume": 20000,
  "/api/board/name": 5000,
  "/api/board/leaders": 10000,
  "/api/board/movers": 5000,
  "/api/board/sector": 10000,
  "/api/board/crypto": 5000,
  "/api/board/crypto/night": 5000,
  "/api/board/tradfi-risk": 5000,
  "/api/board/hold": 5000,
  // The history reads (issue 21): sold like the others.
  "/api/board/asof": 50000,
  "/api/board/regime/history": 5000,
  "/api/board/name/history": 10000,
  "/api/board/changes": 5000,
};
const FREE_TIER = ["/api/board/regime", "/api/board/indices", "/api/board/movers", "/api/board/crypto", "/api/board/crypto/night", "/api/board/tradfi-risk", "/api/board/hold"];

describe("route catalogue", () => {
  it("prices every paid read of SPEC.md 4.1 and DECISIONS.md in base units", () => {
    for (const [path, price] of Object.entries(SPEC_PAID)) expect(ROUTE_BY_PATH.get(path)?.price, path).toBe(BigInt(price));
    expect(ROUTES.filter((r) => r.kind === "paid").map((r) => r.path).sort()).toEqual(Object.keys(SPEC_PAID).sort());
  });
  it("opens exactly the tier reads of SPEC.md 5 to free keys and wallets", () => {
    const open = ROUTES.filter((r) => r.tiers.includes("free_key")).map((r) => r.path).filter((p) => p in SPEC_PAID);
    expect(open.sort()).toEqual([...FREE_TIER].sort());
    expect(ROUTES.filter((r) => r.tiers.includes("wallet") && r.path in SPEC_PAID).map((r) => r.path).sort()).toEqual([...FREE_TIER].sort());
  });
  it("lists every free, live, discovery and auth path of SPEC.md 4.2-4.4 once", () => {
    for (const p of ["/api/board/free", "/api/board/status", "/api/board/symbols", "/api/board/state", "/api/board/asof", "/api/board/signal-audit", "/api/board/proof", "/api/perf", "/api", "/openapi.json", "/llms.txt", "/.well-known/api-catalog", "/.well-known/mcp/server-card.json", "/api/live/feed", "/api/live/rules", "/api/live/setup", "/api/key", "/api/auth/nonce", "/api/auth/verify", "/oauth/token", "/oauth/jwks", "/oauth/authorize", "/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource"])
      expect(ROUTE_BY_PATH.has(p), p).toBe(true);
    expect(ROUTE_BY_PATH.size).toBe(ROUTES.length);
    expect(ROUTE_BY_PATH.has("/.well-known/openid-configuration")).toBe(false);
  });
  it("turns agent?preview=1 into the free preview and refuses other preview values", () => {
    const agent = ROUTE_BY_PATH.get("/api/board/agent")!;
    expect(viewFor(agent, agent.query.parse({ preview: "1" }))).toEqual({ view: "preview", free: true });
    expect(viewFor(agent, agent.query.parse({}))).toEqual({ view: "agent", free: false });
    expect(agent.query.safeParse({ preview: "2" }).success).toBe(false);
    expect(agent.query.safeParse({ preview: ["1", "1"] }).success).toBe(false);
  });
  it("sells asof?date= and serves asof?sample=1 free, and refuses both or neither", () => {
    const asof = ROUTE_BY_PATH.get("/api/board/asof")!;
    expect(viewFor(asof, asof.query.parse({ sample: "1" }))).toEqual({ view: "asof-sample", free: true });
    expect(viewFor(asof, asof.query.parse({ date: "2026-11-20" }))).toEqual({ view: "asof", free: false });
    expect(asof.query.safeParse({}).success).toBe(false);
    expect(asof.query.safeParse({ date: "2026-11-20", sample: "1" }).success).toBe(false);
    expect(asof.query.safeParse({ date: "20261120" }).success).toBe(false);
  });
  it("names the parameters a request needs: the required ones, or the paid one of asof's two", () => {
    expect(neededParams(ROUTE_BY_PATH.get("/api/board/name")!)).toEqual(["sym"]);
    expect(neededParams(ROUTE_BY_PATH.get("/api/board/agent")!)).toEqual([]);
    expect(neededParams(ROUTE_BY_PATH.get("/api/board/asof")!)).toEqual(["date"]);
    expect(neededParams(ROUTE_BY_PATH.get("/api/board/regime/history")!)).toEqual([]);
  });
  it("bounds the history reads' parameters", () => {
    const names = ROUTE_BY_PATH.get("/api/board/name/history")!;
    expect(names.query.parse({ sym: "aapl", days: "250" })).toEqual({ sym: ["AAPL"], days: 250 });
    expect(names.query.safeParse({ sym: "AAPL", days: "251" }).success).toBe(false);
    expect(names.query.safeParse({ sym: "AAPL", days: "0" }).success).toBe(false);
    const regime = ROUTE_BY_PATH.get("/api/board/regime/history")!;
    expect(regime.query.safeParse({ book: "spx" }).success).toBe(true);
    expect(regime.query.safeParse({ book: "SPX" }).success).toBe(false);
    const changes = ROUTE_BY_PATH.get("/api/board/changes")!;
    expect(changes.query.safeParse({ since: "a".repeat(64) }).success).toBe(true);
    expect(changes.query.safeParse({ since: "A".repeat(64) }).success).toBe(false);
    expect(changes.query.safeParse({}).success).toBe(false);
  });
  it("accepts one to ten symbols on the name read", () => {
    const name = ROUTE_BY_PATH.get("/api/board/name")!;
    expect(name.query.parse({ sym: "aapl, msft" })).toEqual({ sym: ["AAPL", "MSFT"] });
    expect(name.query.safeParse({ sym: "" }).success).toBe(false);
    expect(name.query.safeParse({}).success).toBe(false);
    expect(name.query.safeParse({ sym: Array.from({ length: 11 }, (_, i) => `S${i}`).join(",") }).success).toBe(false);
  });
});
