import { describe, expect, it } from "vitest";
import { MCP_TOOL_BY_NAME, MCP_TOOLS, PAID_ROUTES, ROUTE_BY_PATH, toolView } from "../src/index.js";

describe("the MCP tool catalogue", () => {
  it("names are unique and in MCP's tool-name alphabet", () => {
    expect(MCP_TOOL_BY_NAME.size).toBe(MCP_TOOLS.length);
    for (const t of MCP_TOOLS) expect(t.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
  });

  it("sells every paid route exactly once as a *_live tool, at the route's price", () => {
    const sold = MCP_TOOLS.filter((t) => t.access === "x402").map((t) => ("route" in t.source ? t.source.route : null));
    expect(sold).toEqual(PAID_ROUTES.map((r) => r.path));
    for (const t of MCP_TOOLS.filter((t) => t.access === "x402")) expect(t.name).toMatch(/_live$/);
    expect(MCP_TOOL_BY_NAME.get("get_board_live")?.source).toEqual({ route: "/api/board/agent" });
  });

  it("the live-license tools serve the live routes; the free tools serve free routes or the delayed board", () => {
    const live = MCP_TOOLS.filter((t) => t.access === "live_license").map((t) => ("route" in t.source ? ROUTE_BY_PATH.get(t.source.route)?.kind : null));
    expect(live).toEqual(["live", "live", "live"]);
    expect(MCP_TOOLS.filter((t) => t.access === "live_license").map((t) => t.name)).toEqual(["get_engine_feed", "get_live_rules", "get_live_setup"]);
    for (const t of MCP_TOOLS.filter((t) => t.access === "free")) {
      if ("route" in t.source) expect(ROUTE_BY_PATH.get(t.source.route)?.kind).toBe("free");
      else expect(t.source.view).toBe("delayed");
    }
  });

  it("tools taking symbols accept what the route's query accepts", () => {
    for (const name of ["get_name_live", "get_hold_live"]) {
      const tool = MCP_TOOL_BY_NAME.get(name)!;
      expect(tool.input.safeParse({ sym: "AAPL,MSFT" }).success).toBe(true);
      expect(tool.input.safeParse({}).success).toBe(false);
      expect(tool.input.safeParse({ sym: 1 }).success).toBe(false);
    }
  });

  it("a tool serves one view: its arguments never select its route's free variant", () => {
    for (const t of MCP_TOOLS) {
      const route = "route" in t.source ? ROUTE_BY_PATH.get(t.source.route) : undefined;
      if (route?.freeVariant) expect(Object.keys(t.input.shape), t.name).not.toContain(route.freeVariant.param);
      expect(toolView(t), t.name).toBe(route ? route.view : "delayed");
    }
  });
});
