import { MCP_TOOLS, PAID_ROUTES, ROUTE_BY_PATH, VIEW_SCHEMAS, X402_MCP_PAYMENT_META, type McpTool, type Route } from "@board/proto";
import { startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader, decodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { BAZAAR, extractDiscoveryInfo, validateAndExtract, validateDiscoveryExtension, type DiscoveryExtension } from "@x402/extensions/bazaar";
import { wrapFetchWithPayment } from "@x402/fetch";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Stack } from "./harness.js";

/**
 * The echoed payment header's bound: payments takes PAYMENT-SIGNATURE up to 16,384 characters
 * (ClaimRequest.value) and node's default header limit is 16 kB; signed offers (about 600
 * characters of JWS per rail, 4 rails) are still to come on the same 402, so the echo of
 * today's extensions stays under 10 kB.
 */
const ECHOED_HEADER_BOUND = 10 * 1024;

const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
/** Header sizes per route and tool, reported once at the end. */
const sizes: Record<string, Record<string, number>> = {};
const note = (what: string, figures: Record<string, number>) => (sizes[what] = { ...sizes[what], ...figures });

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 4 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex });
  await stack.untilServing();
}, 90_000);
afterAll(async () => {
  if (Object.keys(sizes).length > 0) console.info(`bazaar discovery, header sizes in characters:\n${JSON.stringify(sizes, null, 1)}`);
  await stack.stop();
  await chain?.stop();
});

const PAID_TOOLS = MCP_TOOLS.filter((t) => t.access === "x402");
const routeOf = (tool: McpTool): Route => ROUTE_BY_PATH.get((tool.source as { route: string }).route)!;
/** A query every paid route answers 402 to: sym is its only required parameter. */
const queryOf = (tool: McpTool): Record<string, string> => stack.sellingQuery(routeOf(tool));
const withQuery = (route: Route) => {
  const q = new URLSearchParams(stack.sellingQuery(route)).toString();
  return `${stack.base}${route.path}${q ? `?${q}` : ""}`;
};

/** The declaration under bazaar, checked with the extension's own helpers. */
function bazaarOf(required: PaymentRequired): DiscoveryExtension {
  const declaration = required.extensions?.[BAZAAR.key] as DiscoveryExtension | undefined;
  expect(declaration, "the 402 declares bazaar").toBeDefined();
  expect(validateDiscoveryExtension(declaration!)).toEqual({ valid: true });
  const { valid, info } = validateAndExtract(declaration!);
  expect(valid).toBe(true);
  expect(info).toEqual(declaration!.info);
  return declaration!;
}

/** The top-level fields a declaration's output schema gives, per union branch. */
function outputFields(d: DiscoveryExtension): string[][] {
  const example = (d.schema.properties as { output?: { properties: { example: Record<string, unknown> } } }).output!.properties.example;
  const branches = (example["anyOf"] as Record<string, unknown>[] | undefined) ?? [example];
  return branches.map((b) => Object.keys(b["properties"] as object));
}

/** The top-level fields of the route's view as zod writes its schema (what /openapi.json describes), per union branch. */
function viewFields(route: Route): string[][] {
  const full = z.toJSONSchema(VIEW_SCHEMAS[route.view!], { target: "draft-2020-12", io: "output" }) as Record<string, unknown>;
  const branches = (full["anyOf"] as Record<string, unknown>[] | undefined) ?? [full];
  return branches.map((b) => Object.keys(b["properties"] as object));
}

describe("bazaar discovery on the live 402s", () => {
  it.each(PAID_ROUTES.map((r) => [r.path, r] as const))("%s: the HTTP 402 declares GET with the route's query and its body's fields", async (_path, route) => {
    const res = await fetch(withQuery(route));
    expect(res.status).toBe(402);
    const header = res.headers.get("payment-required")!;
    const required = decodePaymentRequiredHeader(header);
    const declaration = bazaarOf(required);
    expect(declaration.info.input).toMatchObject({ type: "http", method: "GET" });
    const queryParams = (declaration.schema.properties.input.properties as { queryParams: { properties: object } }).queryParams;
    expect(Object.keys(queryParams.properties)).toEqual(Object.keys(route.query.shape));
    expect(outputFields(declaration)).toEqual(viewFields(route));
    // The rest of the 402 is as before: payment-identifier and sign-in-with-x, and the body's v2 is the header's.
    expect(Object.keys(required.extensions ?? {}).sort()).toEqual(["bazaar", "offer-receipt", "payment-identifier", "sign-in-with-x"]);
    expect(((await res.json()) as { v2: PaymentRequired }).v2).toEqual(required);
    note(route.path, { "PAYMENT-REQUIRED": header.length, bazaar: JSON.stringify(declaration).length });
  });

  it("every paid MCP tool's 402 (structuredContent and the x402/error text) declares the tool, its arguments and its route's body", async () => {
    const client = new Client({ name: "bazaar-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.base}/mcp`)));
    for (const tool of PAID_TOOLS) {
      const result = (await client.callTool({ name: tool.name, arguments: queryOf(tool) })) as CallToolResult;
      expect(result.isError, tool.name).toBe(true);
      const required = result.structuredContent as unknown as PaymentRequired;
      const declaration = bazaarOf(required);
      expect(declaration.info.input).toMatchObject({ type: "mcp", toolName: tool.name, description: tool.description, transport: "streamable-http" });
      const input = declaration.info.input;
      if (input.type !== "mcp") throw new Error(`${tool.name}: declared as ${input.type}`);
      expect(Object.keys(input.inputSchema["properties"] as object)).toEqual(Object.keys(tool.input.shape));
      const http = bazaarOf(decodePaymentRequiredHeader((await fetch(withQuery(routeOf(tool)))).headers.get("payment-required")!));
      expect(outputFields(declaration)).toEqual(outputFields(http));
      expect(Object.keys(required.extensions ?? {}).sort()).toEqual(["bazaar", "offer-receipt", "payment-identifier"]);
      const text = result.content[0]?.type === "text" ? result.content[0].text : "";
      expect((JSON.parse(text) as { "x402/error": { data: PaymentRequired } })["x402/error"].data).toEqual(required);
    }
    await client.close();
  });
});

describe("paid reads still bought with the declaration echoed", () => {
  it.each(PAID_ROUTES.map((r) => [r.path, r] as const))("%s: @x402/fetch pays, the read is served, the echoed PAYMENT-SIGNATURE stays under the bound and names the route to a facilitator", async (_path, route) => {
    const key = generatePrivateKey();
    await chain.mint(privateKeyToAccount(key).address, route.price!);
    const client = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
    let signature: string | null = null;
    const watching: typeof fetch = (input, init) => {
      signature ??= new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get("payment-signature");
      return fetch(input, init);
    };
    const res = await wrapFetchWithPayment(watching, client)(withQuery(route));
    expect(res.status).toBe(200);
    VIEW_SCHEMAS[route.view!].parse(await res.json());
    expect(signature).not.toBeNull();
    const payload: PaymentPayload = decodePaymentSignatureHeader(signature!);
    expect(Object.keys(payload.extensions ?? {})).toContain(BAZAAR.key);
    expect(extractDiscoveryInfo(payload, payload.accepted)).toMatchObject({ resourceUrl: `${stack.base}${route.path}`, method: "GET" });
    note(route.path, { "PAYMENT-SIGNATURE": signature!.length });
    expect(signature!.length).toBeLessThan(ECHOED_HEADER_BOUND);
  });

  it("the paid MCP tool with the largest declaration: the echoed x402/payment is bought and stays under the bound", async () => {
    const client = new Client({ name: "bazaar-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.base}/mcp`)));
    const unpaid = new Map<McpTool, PaymentRequired>();
    for (const tool of PAID_TOOLS) {
      const result = (await client.callTool({ name: tool.name, arguments: queryOf(tool) })) as CallToolResult;
      unpaid.set(tool, result.structuredContent as unknown as PaymentRequired);
    }
    const size = (r: PaymentRequired) => JSON.stringify(r.extensions?.[BAZAAR.key]).length;
    const [tool, required] = [...unpaid].reduce((a, b) => (size(b[1]) > size(a[1]) ? b : a));
    const key = generatePrivateKey();
    await chain.mint(privateKeyToAccount(key).address, routeOf(tool).price!);
    const payment = await new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key))).createPaymentPayload(required);
    const paid = (await client.callTool({ name: tool.name, arguments: queryOf(tool), _meta: { [X402_MCP_PAYMENT_META]: payment } })) as CallToolResult;
    expect(paid.isError, JSON.stringify(paid.content)).toBeFalsy();
    expect(extractDiscoveryInfo(payment, payment.accepted)).toMatchObject({ toolName: tool.name });
    // The gateway passes it to payments as PAYMENT-SIGNATURE would carry it: base64 JSON.
    const echoed = Buffer.from(JSON.stringify(payment)).toString("base64").length;
    note(tool.name, { bazaar: size(required), "x402/payment (base64)": echoed });
    expect(echoed).toBeLessThan(ECHOED_HEADER_BOUND);
    await client.close();
  });
});
