import { OUTPUT_EXAMPLES, PAID_ROUTES } from "@board/proto";
import { validateDiscoveryExtension } from "@x402/extensions/bazaar";
import { describe, expect, it } from "vitest";
import { boundedExample, buildRouteDeclaration, OUTPUT_SCHEMA_DEPTH, shapeExample } from "../../src/x402/bazaar.js";

const BASE = new URL("https://board.example.com");
type Output = { info: { output: { example: Record<string, unknown> } }; schema: { properties: { output: { properties: { example: Record<string, unknown> } } } } };

describe("the 402's output examples", () => {
  it.each(PAID_ROUTES.map((r) => [r.path, r] as const))("%s: a served board's read cut to the bounded schema's depth, not the bare shape", (path, route) => {
    const d = buildRouteDeclaration(route, BASE) as unknown as Output;
    const served = OUTPUT_EXAMPLES[path];
    expect(served).toBeDefined();
    expect(d.info.output.example).toEqual(boundedExample(served, OUTPUT_SCHEMA_DEPTH));
    expect(validateDiscoveryExtension(d as never)).toEqual({ valid: true });
  });

  it("carries real values where the shape has empty ones", () => {
    const agent = buildRouteDeclaration(PAID_ROUTES.find((r) => r.path === "/api/board/agent")!, BASE) as unknown as Output;
    const shape = shapeExample(agent.schema.properties.output.properties.example) as Record<string, unknown>;
    expect(shape["asof_daily"]).toBe("");
    expect(agent.info.output.example["asof_daily"]).toBe((OUTPUT_EXAMPLES["/api/board/agent"] as Record<string, unknown>)["asof_daily"]);
    expect(agent.info.output.example["asof_daily"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("cuts below the depth: objects and lists empty, values kept above it", () => {
    const read = { product: "scored-market-board", n: 3, ok: true, none: null, books: { spx: { verdict: "NAMES_ON" } }, names: [{ sym: "AAA" }] };
    expect(boundedExample(read, 1)).toEqual({ product: "scored-market-board", n: 3, ok: true, none: null, books: {}, names: [] });
    expect(boundedExample(read, 2)).toEqual({ ...read, books: { spx: {} }, names: [{}] });
  });
});
