import { MCP_TOOLS, ROUTE_BY_PATH, VIEW_SCHEMAS, X402_MCP_PAYMENT_META, X402_MCP_RESPONSE_META, type McpTool } from "@board/proto";
import { eip3009TokenAbi, startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { createPublicClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RAILS } from "../../services/gateway/src/discovery/offers.js";
import { usdc } from "../../services/gateway/src/discovery/terms.js";
import { Stack } from "./harness.js";

// What an integrator's host sees at /mcp, through the MCP SDK's own client: each paid tool's
// price in its description and hints, the free get_price, the prompts, and paying per call.
const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 2 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays({ live: true });
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex });
  await stack.untilServing();
}, 90_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: "integrator-host", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.base}/mcp`)));
  return client;
}

const PAID = MCP_TOOLS.filter((t) => t.access === "x402");
const priceOfTool = (tool: McpTool) => ROUTE_BY_PATH.get((tool.source as { route: string }).route)!.price!;
const call = async (client: Client, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;

interface Prices {
  prices: { tool: string; access: string; amount: string | null; usd: string | null; rails: { rail: string; network: string; asset: string }[] }[];
  note: string;
}

describe("what a paid tool costs, as tools/list says it", () => {
  it("every *_live tool's description states its price and rails, the catalogue's number; free and licensed tools say none", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    for (const tool of PAID) {
      const listed = tools.find((t) => t.name === tool.name)!;
      const price = priceOfTool(tool);
      expect(listed.description, tool.name).toContain(`Costs ${usdc(price)} USDC (${price} base units) per call`);
      for (const rail of ["Base", "Solana", "Algorand"]) expect(listed.description, tool.name).toContain(rail);
      expect(listed._meta?.["board/price"]).toEqual({ amount: String(price), asset: "USDC", decimals: 6 });
    }
    for (const tool of MCP_TOOLS.filter((t) => t.access !== "x402")) expect(tools.find((t) => t.name === tool.name)!.description).not.toContain("Costs ");
    await client.close();
  });

  it("a paid tool's hints say it spends money (not read-only, not idempotent, open world, not destructive); the free reads stay read-only", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    for (const tool of PAID)
      expect(tools.find((t) => t.name === tool.name)!.annotations, tool.name).toMatchObject({ readOnlyHint: false, idempotentHint: false, openWorldHint: true, destructiveHint: false });
    for (const tool of MCP_TOOLS.filter((t) => t.access !== "x402"))
      expect(tools.find((t) => t.name === tool.name)!.annotations, tool.name).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
    expect(tools.find((t) => t.name === "get_price")!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    await client.close();
  });

  it("get_price is free: every tool's amount and rails, the same amount an unpaid call's requirements ask", async () => {
    const client = await connect();
    // Listed first, so the SDK client checks each answer against get_price's outputSchema.
    await client.listTools();
    const all = await call(client, "get_price");
    expect(all.isError, JSON.stringify(all.content)).toBeFalsy();
    const prices = all.structuredContent as unknown as Prices;
    expect(prices.prices.map((p) => p.tool)).toEqual(MCP_TOOLS.map((t) => t.name));
    for (const tool of MCP_TOOLS) {
      const entry = prices.prices.find((p) => p.tool === tool.name)!;
      expect(entry.access).toBe(tool.access);
      if (tool.access !== "x402") {
        expect(entry).toMatchObject({ amount: null, usd: null, rails: [] });
        continue;
      }
      expect(entry.amount).toBe(String(priceOfTool(tool)));
      expect(entry.usd).toBe(usdc(priceOfTool(tool)));
      expect(entry.rails.map((r) => [r.rail, r.network, r.asset])).toEqual(RAILS.map((r) => [r.rail, r.network, r.asset]));
    }

    const one = await call(client, "get_price", { tool: "get_name_history_live" });
    expect((one.structuredContent as unknown as Prices).prices).toHaveLength(1);
    // The amount the 402 asks is get_price's, and its offers are on rails get_price names.
    const unpaid = await call(client, "get_regime_live");
    const required = unpaid.structuredContent as unknown as PaymentRequired;
    const regime = prices.prices.find((p) => p.tool === "get_regime_live")!;
    for (const offer of required.accepts) {
      expect(offer.amount).toBe(regime.amount);
      expect(regime.rails.map((r) => r.network)).toContain(offer.network);
    }

    const unknown = await call(client, "get_price", { tool: "get_everything_live" });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toMatchObject({ error: { code: "invalid_query", param: "tool" } });
    await client.close();
  });
});

describe("prompts carry the intended use", () => {
  it("the server declares prompts; prompts/list names buy_on_change, regime_before_buylist and check_price_first", async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: false });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["buy_on_change", "regime_before_buylist", "check_price_first"]);
    for (const p of prompts) expect(p.description?.length, p.name).toBeGreaterThan(20);
    await client.close();
  });

  it("prompts/get fills the arguments in: the view's hash to compare, the regime first, the price asked first", async () => {
    const client = await connect();
    const text = (r: Awaited<ReturnType<Client["getPrompt"]>>) => {
      const first = r.messages[0]!;
      expect(first.role).toBe("user");
      if (first.content.type !== "text") throw new Error("expected a text prompt");
      return first.content.text;
    };
    const change = text(await client.getPrompt({ name: "buy_on_change", arguments: { tool: "get_buylist_live", last_hash: "abc123" } }));
    expect(change).toContain("get_board_state");
    expect(change).toContain('views["buylist"]');
    expect(change).toContain("abc123");
    expect(change).toContain(`Costs ${usdc(ROUTE_BY_PATH.get("/api/board/buylist")!.price!)} USDC`);
    // Without arguments: the full board, its own view's hash.
    expect(text(await client.getPrompt({ name: "buy_on_change" }))).toContain('views["agent"]');

    const regime = text(await client.getPrompt({ name: "regime_before_buylist", arguments: { book: "qqq" } }));
    expect(regime.indexOf("get_regime_live")).toBeGreaterThan(-1);
    expect(regime.indexOf("get_regime_live")).toBeLessThan(regime.indexOf("get_buylist_live"));
    expect(regime).toContain("the qqq book");

    const price = text(await client.getPrompt({ name: "check_price_first", arguments: { tool: "get_leaders_live" } }));
    expect(price).toContain('get_price with {"tool": "get_leaders_live"}');
    expect(price).toContain('_meta["x402/payment"]');

    await expect(client.getPrompt({ name: "check_price_first" })).rejects.toThrow(/tool/);
    await expect(client.getPrompt({ name: "check_price_first", arguments: { tool: "get_status" } })).rejects.toThrow(/not a paid/);
    await expect(client.getPrompt({ name: "regime_before_buylist", arguments: { book: "ftse" } })).rejects.toThrow(/book/);
    await expect(client.getPrompt({ name: "buy_everything" })).rejects.toThrow(/buy_everything/);
    await client.close();
  });

  it("the server card shows the prompts and get_price, as the server lists them", async () => {
    const card = (await (await fetch(`${stack.base}/.well-known/mcp/server-card.json`)).json()) as { capabilities: { prompts?: unknown }; prompts: { name: string }[]; tools: { name: string }[] };
    const client = await connect();
    expect(card.prompts.map((p) => p.name)).toEqual((await client.listPrompts()).prompts.map((p) => p.name));
    expect(card.capabilities.prompts).toEqual({ listChanged: false });
    expect(card.tools.map((t) => t.name)).toContain("get_price");
    await client.close();
  });
});

describe("a host pays per call as docs/mcp.md says", () => {
  it("get_price, the unpaid call's requirements, one signed offer in _meta[\"x402/payment\"]: the read served, the receipt in _meta, the price paid", async () => {
    const key = generatePrivateKey();
    await chain.mint(privateKeyToAccount(key).address, 1_000_000n);
    const balance = (address: Hex) => createPublicClient({ transport: http(chain.rpcUrl) }).readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "balanceOf", args: [address] });
    const payer = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
    const client = await connect();

    const quoted = ((await call(client, "get_price", { tool: "get_leaders_live" })).structuredContent as unknown as Prices).prices[0]!;
    const unpaid = await call(client, "get_leaders_live");
    expect(unpaid.isError).toBe(true);
    // Hosts that read only text find the same requirements under x402/error.
    expect(JSON.parse((unpaid.content[0] as { text: string }).text)).toMatchObject({ "x402/error": { code: 402 } });
    const payment = await payer.createPaymentPayload(unpaid.structuredContent as unknown as PaymentRequired);
    const before = await balance(payTo);
    const paid = await call(client, "get_leaders_live", {}, { [X402_MCP_PAYMENT_META]: payment });
    expect(paid.isError, JSON.stringify(paid.content).slice(0, 300)).toBeFalsy();
    expect(VIEW_SCHEMAS.leaders.safeParse(paid.structuredContent).success).toBe(true);
    expect(paid._meta?.[X402_MCP_RESPONSE_META]).toMatchObject({ success: true, network: "eip155:8453" });
    expect(String((await balance(payTo)) - before)).toBe(quoted.amount);
    await client.close();
  });
});
