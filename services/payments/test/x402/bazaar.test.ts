import { MCP_TOOLS, PAID_ROUTES, ROUTE_BY_PATH, VIEW_SCHEMAS, type McpTool, type Route } from "@board/proto";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { FacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import {
  BAZAAR,
  extractDiscoveryInfo,
  validateAndExtract,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
} from "@x402/extensions/bazaar";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import type { X402Rail } from "../../src/rails/rail.js";
import { bazaarDeclaration, buildRouteDeclaration, buildToolDeclaration, paidToolFor } from "../../src/x402/bazaar.js";
import { OfferBook } from "../../src/x402/offer-book.js";
import { paymentRequired } from "../../src/x402/payment-required.js";

const BASE = new URL("https://board.example.com");
const PAID_TOOLS = MCP_TOOLS.filter((t) => t.access === "x402");
const routeOf = (tool: McpTool): Route => ROUTE_BY_PATH.get((tool.source as { route: string }).route)!;

/** What a declaration says, as the catalogue reads it. */
type Declared = {
  info: { input: Record<string, unknown>; output?: { type: string; example: unknown } };
  schema: { properties: { input: { properties: Record<string, { properties?: Record<string, unknown>; required?: string[] }> }; output?: { properties: { example: Record<string, unknown> } } } };
};
const declared = (d: DiscoveryExtension) => d as unknown as Declared;
const tampered = (d: DiscoveryExtension, change: (copy: Declared) => void): DiscoveryExtension => {
  const copy = structuredClone(d) as unknown as Declared;
  change(copy);
  return copy as unknown as DiscoveryExtension;
};

/** The top-level fields of a view's body as zod writes them, per union branch. */
function topLevelFields(route: Route): string[][] {
  const full = z.toJSONSchema(VIEW_SCHEMAS[route.view!], { target: "draft-2020-12", io: "output" }) as Record<string, unknown>;
  const branches = (full["anyOf"] as Record<string, unknown>[] | undefined) ?? [full];
  return branches.map((b) => Object.keys(b["properties"] as object));
}
function declaredFields(example: Record<string, unknown>): string[][] {
  const branches = (example["anyOf"] as Record<string, unknown>[] | undefined) ?? [example];
  return branches.map((b) => Object.keys(b["properties"] as object));
}

describe("bazaar declarations of the paid routes", () => {
  it.each(PAID_ROUTES.map((r) => [r.path, r] as const))("%s: valid by the extension's schema and spec, GET, with exactly the route's query parameters", (_path, route) => {
    const d = buildRouteDeclaration(route, BASE);
    expect(validateDiscoveryExtension(d)).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(d as unknown as Record<string, unknown>)).toEqual({ valid: true });
    expect(validateAndExtract(d).info).toEqual(d.info);
    const { info, schema } = declared(d);
    expect(info.input).toMatchObject({ type: "http", method: "GET" });
    const query = schema.properties.input.properties["queryParams"]!;
    expect(Object.keys(query.properties ?? {})).toEqual(Object.keys(route.query.shape));
    const required = Object.entries(route.query.shape).filter(([, field]) => !(field instanceof z.ZodOptional)).map(([name]) => name);
    expect(query.required ?? []).toEqual(required);
    // The example query is one the route accepts, and sells the paid read (preview=1 would be free).
    expect(route.query.safeParse(info.input["queryParams"]).success).toBe(true);
    expect(info.input["queryParams"]).not.toHaveProperty("preview");
  });

  it.each(PAID_ROUTES.map((r) => [r.path, r] as const))("%s: the output declares the view's top-level fields, points at /openapi.json, and stays small", (_path, route) => {
    const { info, schema } = declared(buildRouteDeclaration(route, BASE));
    const example = schema.properties.output!.properties.example;
    expect(declaredFields(example)).toEqual(topLevelFields(route));
    expect(example["description"]).toContain(`GET ${route.path} in https://board.example.com/openapi.json`);
    expect(info.output?.type).toBe("json");
    // Bounded at depth 1 (bazaar.ts): the largest, /api/board/sector, is about 2.0 kB.
    expect(JSON.stringify(buildRouteDeclaration(route, BASE)).length).toBeLessThan(2_500);
  });

  it("a tampered declaration fails the extension's validation", () => {
    const route = ROUTE_BY_PATH.get("/api/board/name")!;
    const d = buildRouteDeclaration(route, BASE);
    const wrongMethod = tampered(d, (c) => (c.info.input["method"] = "POST"));
    expect(validateDiscoveryExtension(wrongMethod).valid).toBe(false);
    const noSym = tampered(d, (c) => (c.info.input["queryParams"] = {}));
    expect(validateDiscoveryExtension(noSym)).toMatchObject({ valid: false, errors: [expect.stringContaining("sym")] });
    const badOutput = tampered(d, (c) => (c.info.output!.example = { product: "something else" }));
    expect(validateDiscoveryExtension(badOutput).valid).toBe(false);
    const external = tampered(d, (c) => (c.schema.properties.input.properties["queryParams"]!.properties = { sym: { $ref: "https://evil.example/s.json" } }));
    expect(validateDiscoveryExtension(external)).toEqual({ valid: false, errors: ["schema must not contain external $ref/$id references"] });
  });
});

describe("bazaar declarations of the paid MCP tools", () => {
  it.each(PAID_TOOLS.map((t) => [t.name, t] as const))("%s: valid, type mcp over streamable HTTP, with its arguments and its route's output", (_name, tool) => {
    const d = buildToolDeclaration(tool, BASE);
    expect(validateDiscoveryExtension(d)).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(d as unknown as Record<string, unknown>)).toEqual({ valid: true });
    const { info, schema } = declared(d);
    expect(info.input).toMatchObject({ type: "mcp", toolName: tool.name, description: tool.description, transport: "streamable-http" });
    const inputSchema = info.input["inputSchema"] as { type: string; properties: Record<string, unknown> };
    expect(inputSchema.type).toBe("object");
    expect(Object.keys(inputSchema.properties)).toEqual(Object.keys(tool.input.shape));
    expect(declaredFields(schema.properties.output!.properties.example)).toEqual(topLevelFields(routeOf(tool)));
    expect(JSON.stringify(d).length).toBeLessThan(3_000);
  });

  it("a tampered tool declaration fails the extension's validation", () => {
    const d = buildToolDeclaration(PAID_TOOLS[0]!, BASE);
    expect(validateDiscoveryExtension(tampered(d, (c) => (c.info.input["transport"] = "sse"))).valid).toBe(false);
    expect(validateDiscoveryExtension(tampered(d, (c) => delete c.info.input["inputSchema"])).valid).toBe(false);
  });

  it("only a paid tool that sells the route is accepted, and each declaration is built once", () => {
    const regime = ROUTE_BY_PATH.get("/api/board/regime")!;
    expect(paidToolFor(regime, "get_regime_live")?.name).toBe("get_regime_live");
    expect(paidToolFor(regime, "get_board_live")).toBeUndefined();
    expect(paidToolFor(ROUTE_BY_PATH.get("/api/live/feed")!, "get_engine_feed")).toBeUndefined();
    expect(paidToolFor(regime, "no_such_tool")).toBeUndefined();
    const tool = paidToolFor(regime, "get_regime_live")!;
    expect(bazaarDeclaration(regime, BASE, tool)).toBe(bazaarDeclaration(regime, BASE, tool));
    expect(bazaarDeclaration(regime, BASE)).toBe(bazaarDeclaration(regime, BASE));
    expect(Object.isFrozen(declared(bazaarDeclaration(regime, BASE)).info.input)).toBe(true);
  });
});

/** A Base USDC offer as the EVM rail makes one: enough for x402's EVM client to sign against, no chain asked. */
const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const PAY_TO = privateKeyToAccount(generatePrivateKey()).address;
const standInRail: X402Rail = {
  rail: "base",
  network: "eip155:8453",
  networkAliases: [],
  v1Network: "base",
  offer: async (amount, maxTimeoutSeconds): Promise<PaymentRequirements> => ({
    scheme: "exact",
    network: "eip155:8453",
    asset: USDC,
    amount: String(amount),
    payTo: PAY_TO,
    maxTimeoutSeconds,
    extra: { name: "USD Coin", version: "2" },
  }),
  owns: () => true,
  facilitator: (ours) => ours,
  paymentKey: () => null,
  payer: () => null,
};
const unused = () => Promise.reject(new Error("no facilitator in this test"));
const facilitator: FacilitatorClient = { verify: unused, settle: unused, getSupported: unused };
const book = new OfferBook([standInRail], facilitator, BASE, 60, async () => null);

/** What @x402/fetch and x402's MCP client send back: the 402's extensions echoed in a signed v2 payload. */
async function pay(header: string): Promise<PaymentPayload> {
  const client = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())));
  return client.createPaymentPayload(decodePaymentRequiredHeader(header));
}

describe("a facilitator reads the declaration from the payment that echoes the 402", () => {
  it.each(PAID_ROUTES.map((r) => [r.path, r] as const))("%s over HTTP: extractDiscoveryInfo gives the route's URL, GET and the declared info", async (_path, route) => {
    const query = new URLSearchParams(declared(bazaarDeclaration(route, BASE)).info.input["queryParams"] as Record<string, string>).toString();
    const reply = await paymentRequired(book, null, route, { path: route.path, query });
    const payload = await pay(reply.headers["PAYMENT-REQUIRED"]!);
    expect(payload.extensions?.[BAZAAR.key]).toEqual(bazaarDeclaration(route, BASE));
    const found = extractDiscoveryInfo(payload, payload.accepted);
    expect(found).toMatchObject({ resourceUrl: `https://board.example.com${route.path}`, method: "GET", x402Version: 2, description: route.summary });
    expect(found?.discoveryInfo).toEqual(bazaarDeclaration(route, BASE).info);
  });

  it.each(PAID_TOOLS.map((t) => [t.name, t] as const))("%s over MCP: the tool's declaration replaces the route's, and extracts with its tool name", async (_name, tool) => {
    const route = routeOf(tool);
    const reply = await paymentRequired(book, null, route, { path: route.path, query: "", tool: tool.name });
    const payload = await pay(reply.headers["PAYMENT-REQUIRED"]!);
    const found = extractDiscoveryInfo(payload, payload.accepted);
    expect(found).toMatchObject({ resourceUrl: `https://board.example.com${route.path}`, toolName: tool.name });
    expect(found?.discoveryInfo.input.type).toBe("mcp");
  });

  it("an echo altered by the client is not catalogued", async () => {
    const route = ROUTE_BY_PATH.get("/api/board/hold")!;
    const reply = await paymentRequired(book, null, route, { path: route.path, query: "sym=AAPL" });
    const payload = await pay(reply.headers["PAYMENT-REQUIRED"]!);
    const altered = { ...payload, extensions: { ...payload.extensions, [BAZAAR.key]: tampered(bazaarDeclaration(route, BASE), (c) => (c.info.input["method"] = "DELETE")) } };
    expect(extractDiscoveryInfo(altered, payload.accepted)).toBeNull();
  });

  it("a tool that does not sell the route is refused, not declared", async () => {
    const route = ROUTE_BY_PATH.get("/api/board/regime")!;
    await expect(paymentRequired(book, null, route, { path: route.path, query: "", tool: "get_board_live" })).rejects.toMatchObject({ code: "invalid_request", status: 400 });
  });
});
