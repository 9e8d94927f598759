import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MCP_TOOLS, ROUTE_BY_PATH, VIEW_SCHEMAS, X402_MCP_RESPONSE_META } from "@board/proto";
import { eip3009TokenAbi, startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createPublicClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "./harness.js";

// A standard host with no wallet, as docs/mcp.md has it run the client package's paying proxy:
// board-mcp spawned over stdio by the MCP SDK's own client, the board's /mcp behind it, a buyer
// key from the environment funded on a local chain. The tools, prompts and resources are the
// board's; a paid call is paid by the proxy within its per-call maximum, and only then.
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = "packages/client/src/cli/mcp-bin.ts";
const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;
const buyerKey = generatePrivateKey();
const buyer = privateKeyToAccount(buyerKey).address;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "board-mcp-proxy-"));
const receiptsFile = path.join(work, "receipts.jsonl");
const TOOL = "get_leaders_live";
const PRICE = BigInt(ROUTE_BY_PATH.get((MCP_TOOLS.find((t) => t.name === TOOL)!.source as { route: string }).route)!.price!);

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 2 });
  await stack.start();
  await stack.startBoard();
  await stack.publishTwoDays({ live: true });
  await stack.startPayments({ PAY_TO_BASE: payTo, BASE_RPC_URL: chain.rpcUrl, BASE_FACILITATOR_KEY: chain.accounts[0] as Hex });
  await stack.untilServing();
  await chain.mint(buyer, 1_000_000n);
}, 90_000);
afterAll(async () => {
  await stack.stop();
  await chain?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

const balance = (address: Hex) => createPublicClient({ transport: http(chain.rpcUrl) }).readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "balanceOf", args: [address] });
const receipts = () => (fs.existsSync(receiptsFile) ? fs.readFileSync(receiptsFile, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []);

/** The proxy as a host starts it (node runs the TypeScript entry here; `npx` runs the built bin elsewhere). */
async function proxy(extraArgs: string[] = [], env: Record<string, string> = {}): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "tsx", BIN, `${stack.base}/mcp`, ...extraArgs],
    cwd: ROOT,
    env: { BOARD_BUYER_EVM_KEY: buyerKey, BOARD_RECEIPTS: receiptsFile, ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "standard-host", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

async function direct(): Promise<Client> {
  const client = new Client({ name: "direct", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.base}/mcp`)));
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;

describe("board-mcp, the client package's paying proxy, over stdio", () => {
  it("lists the board's tools as the board does (prices in the descriptions, hints, schemas, _meta), and its prompts and resources", async () => {
    const { client } = await proxy();
    const board = await direct();
    const { tools } = await client.listTools();
    expect(tools).toEqual((await board.listTools()).tools);
    const paid = tools.find((t) => t.name === TOOL)!;
    expect(paid.description).toContain(`(${PRICE} base units) per call`);
    expect(paid.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(paid._meta?.["board/price"]).toEqual({ amount: String(PRICE), asset: "USDC", decimals: 6 });
    expect(paid.outputSchema).toBeDefined();
    expect((await client.listPrompts()).prompts).toEqual((await board.listPrompts()).prompts);
    expect((await client.listResources()).resources).toEqual((await board.listResources()).resources);
    expect(client.getInstructions()).toBe(board.getInstructions());
    await Promise.all([client.close(), board.close()]);
  }, 60_000);

  it("a free tool passes through unpaid; a paid tool is paid by the proxy: the read, its settlement in _meta, the buyer charged exactly the price, the receipt kept", async () => {
    const { client, stderr } = await proxy();
    await client.listTools(); // As a host does: the SDK then checks each result against the tool's outputSchema.
    const buyerBefore = await balance(buyer);
    const payToBefore = await balance(payTo);

    const free = await call(client, "get_price", { tool: TOOL });
    expect(free.isError, JSON.stringify(free.content)).toBeFalsy();
    expect(free.structuredContent).toMatchObject({ prices: [{ tool: TOOL, amount: String(PRICE) }] });
    expect(await balance(buyer)).toBe(buyerBefore);

    const paid = await call(client, TOOL);
    expect(paid.isError, `${JSON.stringify(paid.content).slice(0, 300)}\n${stderr()}`).toBeFalsy();
    expect(VIEW_SCHEMAS.leaders.safeParse(paid.structuredContent).success).toBe(true);
    const settlement = paid._meta?.[X402_MCP_RESPONSE_META] as { success: boolean; transaction: string; network: string; payer: string };
    expect(settlement).toMatchObject({ success: true, network: "eip155:8453" });
    expect(settlement.payer.toLowerCase()).toBe(buyer.toLowerCase());
    expect(buyerBefore - (await balance(buyer))).toBe(PRICE);
    expect((await balance(payTo)) - payToBefore).toBe(PRICE);

    const kept = receipts();
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ rail: "base", price: String(PRICE), transaction: settlement.transaction, header: "PAYMENT-RESPONSE", path: "/api/board/leaders" });
    expect(stderr()).toContain(`${TOOL}: paid`);
    await client.close();
  }, 60_000);

  it("a paid tool dearer than the per-call maximum is refused with price_above_limit: nothing signed, nothing charged", async () => {
    const { client } = await proxy(["--max-price", String(PRICE - 1n)]);
    await client.listTools();
    const before = await balance(buyer);
    const kept = receipts().length;

    const refused = await call(client, TOOL);
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toBeUndefined();
    const body = JSON.parse((refused.content[0] as { text: string }).text) as { error: { code: string; message: string; price: string; max_price: string } };
    expect(body.error).toMatchObject({ code: "price_above_limit", price: String(PRICE), max_price: String(PRICE - 1n) });
    expect(body.error.message).toContain("nothing was paid");
    expect(await balance(buyer)).toBe(before);
    expect(receipts()).toHaveLength(kept);

    // The cap from the environment is the same one (BOARD_MCP_MAX_PRICE), and free tools still answer.
    expect((await call(client, "get_status")).isError).toBeFalsy();
    await client.close();
    const fromEnv = await proxy([], { BOARD_MCP_MAX_PRICE: String(PRICE - 1n) });
    expect(JSON.parse(((await call(fromEnv.client, TOOL)).content[0] as { text: string }).text)).toMatchObject({ error: { code: "price_above_limit" } });
    expect(await balance(buyer)).toBe(before);
    await fromEnv.client.close();
  }, 60_000);
});
