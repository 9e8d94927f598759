import { identityLicenseIssue, MCP_TOOLS, ROUTE_BY_PATH, VIEW_SCHEMAS, X402_MCP_PAYMENT_META, X402_MCP_RESPONSE_META, type ViewName } from "@board/proto";
import { request } from "@board/service-kit";
import { eip3009TokenAbi, startEvmChain, type EvmChain } from "@board/test-chains/evm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { x402Client } from "@x402/core/client";
import type { PaymentRequired } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { createPublicClient, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Stack } from "./harness.js";

const stack = new Stack();
let chain: EvmChain;
const payTo = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  chain = await startEvmChain({ accounts: 4 });
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

/** The SDK client's own validator (ajv), counting the results it checks, so a test can tell that every call was checked. */
const checked = { results: 0 };
const countingValidator: jsonSchemaValidator = (() => {
  const ajv = new AjvJsonSchemaValidator();
  return {
    getValidator<T>(schema: JsonSchemaType) {
      const validate = ajv.getValidator<T>(schema);
      return (input: unknown) => {
        checked.results++;
        return validate(input);
      };
    },
  };
})();

/**
 * An MCP SDK client on /mcp, with the headers of its connection. It lists the tools first, as
 * hosts do: from then on callTool checks every structuredContent against the tool's
 * outputSchema and throws on a mismatch.
 */
async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "board-test", version: "1.0.0" }, { jsonSchemaValidator: countingValidator });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.base}/mcp`), { requestInit: { headers } }));
  await client.listTools();
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as CallToolResult;

const textOf = (r: CallToolResult) => {
  const first = r.content[0];
  if (first?.type !== "text") throw new Error("expected text content");
  return first.text;
};
const errorCode = (r: CallToolResult) => (JSON.parse(textOf(r)) as { error: { code: string } }).error.code;

/** A served result: structuredContent is the view's body (the client checked it against the outputSchema), and the text is the same JSON. */
function expectServed(name: string, result: CallToolResult) {
  expect(result.isError, `${name}: ${result.isError ? textOf(result) : ""}`).toBeFalsy();
  expect(result.structuredContent, name).toEqual(JSON.parse(textOf(result)));
  const parsed = VIEW_SCHEMAS[viewOfTool(name)].safeParse(result.structuredContent);
  expect(parsed.success, `${name}: ${parsed.error?.message ?? ""}`).toBe(true);
}

const viewOfTool = (name: string): ViewName => {
  const tool = MCP_TOOLS.find((t) => t.name === name)!;
  return "view" in tool.source ? tool.source.view : ROUTE_BY_PATH.get(tool.source.route)!.view!;
};

describe("MCP at /mcp with the MCP SDK client", () => {
  it("lists every tool of the catalogue with an object input schema, access and price", async () => {
    const client = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: "scored-market-board", version: "1.1.0" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...MCP_TOOLS.map((t) => t.name), "get_price"]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      // A paid call spends the caller's money: not read-only (mcp-distribution.test.ts checks the rest).
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(MCP_TOOLS.find((t) => t.name === tool.name)?.access !== "x402");
    }
    const regime = tools.find((t) => t.name === "get_regime_live")!;
    expect(regime._meta).toMatchObject({ "board/access": "x402", "board/price": { amount: "5000", asset: "USDC", decimals: 6 } });
    expect(tools.find((t) => t.name === "get_name_live")!.inputSchema.required).toEqual(["sym"]);
    await client.close();
  });

  it("calls every free tool without credentials; each answer is its view's body, as structuredContent and as text", async () => {
    const client = await connect();
    for (const tool of MCP_TOOLS.filter((t) => t.access === "free")) expectServed(tool.name, await call(client, tool.name));
    await client.close();
  });

  it("the delayed board is the whole board of the previous trading day", async () => {
    const client = await connect();
    const delayed = JSON.parse(textOf(await call(client, "get_delayed_board"))) as { asof_daily: string; names: unknown[] };
    const free = JSON.parse(textOf(await call(client, "get_free_board"))) as { asof_daily: string };
    const status = JSON.parse(textOf(await call(client, "get_status"))) as { asof_daily: string };
    const symbols = JSON.parse(textOf(await call(client, "get_symbols"))) as { count: number };
    expect(delayed.names.length).toBe(symbols.count);
    expect(delayed.asof_daily).toBe(free.asof_daily);
    expect(delayed.asof_daily < status.asof_daily).toBe(true);
    await client.close();
  });

  it("every *_live tool answers unpaid calls with x402's PaymentRequired (structuredContent and the x402/error text)", async () => {
    const client = await connect();
    for (const tool of MCP_TOOLS.filter((t) => t.access === "x402")) {
      const route = ROUTE_BY_PATH.get((tool.source as { route: string }).route)!;
      // A query that sells the route on this stack's boards (a symbol, a date, a board's hash).
      const args = stack.sellingQuery(route);
      const result = await call(client, tool.name, args);
      expect(result.isError, tool.name).toBe(true);
      const required = result.structuredContent as unknown as PaymentRequired;
      expect(required.x402Version).toBe(2);
      expect(required.accepts[0]).toMatchObject({ scheme: "exact", network: "eip155:8453", amount: String(route.price), payTo });
      const query = new URLSearchParams(args).toString();
      expect(required.resource.url).toBe(`${stack.base}${route.path}${query ? `?${query}` : ""}`);
      expect(required.extensions?.["sign-in-with-x"]).toBeUndefined();
      const wrapped = JSON.parse(textOf(result)) as { "x402/error": { code: number; data: PaymentRequired } };
      expect(wrapped["x402/error"].code).toBe(402);
      expect(wrapped["x402/error"].data).toEqual(required);
    }
    await client.close();
  });

  it("bad arguments are tool errors with the HTTP reason codes; an unknown tool is a protocol error; the server keeps serving", async () => {
    const client = await connect();
    for (const [name, args] of [
      ["get_name_live", {}],
      ["get_name_live", { sym: "" }],
      ["get_name_live", { sym: 42 }],
      ["get_name_live", { sym: Array.from({ length: 11 }, (_, i) => `S${i}`).join(",") }],
      ["get_hold_live", { sym: ["AAPL"] }],
      ["get_sector_live", { name: "x".repeat(65) }],
      ["get_live_setup", { sym: "" }],
    ] as const) {
      const result = await call(client, name, args as Record<string, unknown>);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(errorCode(result)).toBe("invalid_query");
    }
    await expect(call(client, "get_everything_free")).rejects.toThrow(/get_everything_free/);
    const malformed = await call(client, "get_regime_live", {}, { [X402_MCP_PAYMENT_META]: "not a payload" });
    expect(malformed.isError).toBe(true);
    expect((malformed.structuredContent as { error?: string }).error).toBe("payment_invalid_header");
    expect((await call(client, "get_symbols")).isError).toBeFalsy();
    await client.close();
  });
});

describe("buying a *_live read over x402's MCP transport on the local EVM chain", () => {
  const usdcBalance = (address: Hex) =>
    createPublicClient({ transport: http(chain.rpcUrl) }).readContract({ address: chain.usdc, abi: eip3009TokenAbi, functionName: "balanceOf", args: [address] });

  it("the @x402 client signs the requirements; the call serves the live read with the settlement in _meta; the same payment again gets the same read and receipt, charged once", async () => {
    const key = generatePrivateKey();
    await chain.mint(privateKeyToAccount(key).address, 1_000_000n);
    const payer = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
    const client = await connect();

    const unpaid = await call(client, "get_regime_live");
    const payment = await payer.createPaymentPayload(unpaid.structuredContent as unknown as PaymentRequired);
    const before = await usdcBalance(payTo);
    const paid = await call(client, "get_regime_live", {}, { [X402_MCP_PAYMENT_META]: payment });
    expectServed("get_regime_live", paid);
    const body = VIEW_SCHEMAS.regime.parse(paid.structuredContent);
    expect(body).toMatchObject({ intraday: expect.any(Boolean) });
    const receipt = paid._meta?.[X402_MCP_RESPONSE_META] as { success: boolean; transaction: string; network: string; payer: string };
    expect(receipt).toMatchObject({ success: true, network: "eip155:8453" });
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await usdcBalance(payTo)) - before).toBe(5000n);

    const replay = await call(client, "get_regime_live", {}, { [X402_MCP_PAYMENT_META]: payment });
    expect(replay.isError).toBeFalsy();
    expect(textOf(replay)).toBe(textOf(paid));
    expect(replay._meta?.[X402_MCP_RESPONSE_META]).toEqual(receipt);
    expect((await usdcBalance(payTo)) - before).toBe(5000n);
    await client.close();
  });

  it("a payment for one route does not buy another; a batch name read is bought at the single-name price", async () => {
    const key = generatePrivateKey();
    await chain.mint(privateKeyToAccount(key).address, 1_000_000n);
    const payer = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
    const client = await connect();
    const forRegime = await payer.createPaymentPayload((await call(client, "get_regime_live")).structuredContent as unknown as PaymentRequired);
    const wrong = await call(client, "get_board_live", {}, { [X402_MCP_PAYMENT_META]: forRegime });
    expect(wrong.isError).toBe(true);
    expect((wrong.structuredContent as { error?: string }).error).toMatch(/^payment_/);

    const [first, second] = (JSON.parse(textOf(await call(client, "get_symbols"))) as { symbols: { sym: string }[] }).symbols.map((s) => s.sym);
    const sym = `${first},${second}`;
    const unpaid = await call(client, "get_name_live", { sym });
    const payment = await payer.createPaymentPayload(unpaid.structuredContent as unknown as PaymentRequired);
    const paid = await call(client, "get_name_live", { sym }, { [X402_MCP_PAYMENT_META]: payment });
    expect(paid.isError).toBeFalsy();
    const names = (JSON.parse(textOf(paid)) as { names: { sym: string }[] }).names.map((n) => n.sym);
    expect(names).toEqual([first, second]);
    await client.close();
  });
});

describe("typed results: every tool through the SDK client, which checks structuredContent against the tool's outputSchema", () => {
  it("every free tool, every *_live tool bought with an x402 payment in _meta, and every licensed tool: each result checked, refusals too", async () => {
    const key = generatePrivateKey();
    await chain.mint(privateKeyToAccount(key).address, 2_000_000n);
    const payer = new x402Client().register("eip155:*", new ExactEvmScheme(privateKeyToAccount(key)));
    const license = await request(stack.nc, identityLicenseIssue, { kind: "live_feed", period: "monthly", holder: "typed results" }, { timeoutMs: 5000 });
    const anonymous = await connect();
    const licensed = await connect({ "x-license-key": license.key });
    const before = checked.results;
    let results = 0;
    const tracked = async (client: Client, name: string, args: Record<string, string> = {}, meta?: Record<string, unknown>) => {
      const result = await call(client, name, args, meta);
      if (result.structuredContent) results++;
      return result;
    };

    for (const tool of MCP_TOOLS) {
      const route = "route" in tool.source ? ROUTE_BY_PATH.get(tool.source.route)! : null;
      const args = route ? stack.sellingQuery(route) : {};
      if (tool.access === "free") expectServed(tool.name, await tracked(anonymous, tool.name, args));
      if (tool.access === "live_license") {
        // Refused without the license (the error body, checked too), served with it.
        expect(errorCode(await tracked(anonymous, tool.name, args))).toBe("credential_required");
        expectServed(tool.name, await tracked(licensed, tool.name, args));
      }
      if (tool.access === "x402") {
        const unpaid = await tracked(anonymous, tool.name, args);
        expect(unpaid.isError, tool.name).toBe(true);
        const payment = await payer.createPaymentPayload(unpaid.structuredContent as unknown as PaymentRequired);
        const paid = await tracked(anonymous, tool.name, args, { [X402_MCP_PAYMENT_META]: payment });
        expectServed(tool.name, paid);
        expect(paid._meta?.[X402_MCP_RESPONSE_META], tool.name).toMatchObject({ success: true });
      }
    }
    // Every result that carried structuredContent went through the SDK's check.
    expect(results).toBeGreaterThanOrEqual(MCP_TOOLS.length);
    expect(checked.results - before).toBe(results);
    await anonymous.close();
    await licensed.close();
  });

  it("a result that does not match its outputSchema is refused by the client", async () => {
    // A fetch between client and server that lists get_symbols with get_regime_live's outputSchema: what any mismatch would meet.
    const swapping: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(init?.body ?? "").includes('"tools/list"')) return res;
      const reply = (await res.json()) as { result: { tools: { name: string; outputSchema?: unknown }[] } };
      const regime = reply.result.tools.find((t) => t.name === "get_regime_live")!;
      reply.result.tools = reply.result.tools.map((t) => (t.name === "get_symbols" ? { ...t, outputSchema: regime.outputSchema } : t));
      return new Response(JSON.stringify(reply), { status: res.status, headers: res.headers });
    };
    const client = new Client({ name: "board-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.base}/mcp`), { fetch: swapping }));
    await client.listTools();
    await expect(call(client, "get_symbols")).rejects.toThrow(/does not match the tool's output schema/);
    await client.close();
  });
});

describe("the live tier inside MCP reads only a live-feed license on X-License-Key", () => {
  const issue = (kind: "scanner" | "live_feed") => request(stack.nc, identityLicenseIssue, { kind, period: "monthly", holder: "mcp test" }, { timeoutMs: 5000 });
  const LIVE_TOOLS = MCP_TOOLS.filter((t) => t.access === "live_license").map((t) => t.name);

  it("without a license every live tool is a credential_required tool error", async () => {
    const client = await connect();
    for (const name of LIVE_TOOLS) expect(errorCode(await call(client, name))).toBe("credential_required");
    await client.close();
  });

  it("a scanner license and an unknown key are refused; a bearer token is not read", async () => {
    const scanner = await connect({ "x-license-key": (await issue("scanner")).key });
    expect(errorCode(await call(scanner, "get_engine_feed"))).toBe("forbidden");
    await scanner.close();
    const unknown = await connect({ "x-license-key": "blk_not_a_license_of_ours" });
    expect(errorCode(await call(unknown, "get_engine_feed"))).toBe("license_unknown");
    await unknown.close();
    const bearer = await connect({ authorization: "Bearer eyJhbGciOiJFUzI1NiJ9.e30.sig" });
    expect(errorCode(await call(bearer, "get_live_rules"))).toBe("credential_required");
    await bearer.close();
  });

  it("a live-feed license calls every live tool and gets its view's body", async () => {
    const client = await connect({ "x-license-key": (await issue("live_feed")).key });
    for (const name of LIVE_TOOLS) expectServed(name, await call(client, name));
    const [first, second] = (JSON.parse(textOf(await call(client, "get_symbols"))) as { symbols: { sym: string }[] }).symbols.map((s) => s.sym);
    const two = JSON.parse(textOf(await call(client, "get_live_setup", { sym: `${first},${second}` }))) as { names: { sym: string }[] };
    expect(two.names.map((s) => s.sym)).toEqual([first, second]);
    await client.close();
  });
});

describe("the transport", () => {
  it("GET /mcp without a session is 400 (a stream is a session's); a raw POST needs both Accept types and is answered without a session", async () => {
    const get = await fetch(`${stack.base}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(400);
    expect(((await get.json()) as { error: { message: string } }).error.message).toMatch(/Mcp-Session-Id header is required/);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const notAcceptable = await fetch(`${stack.base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body });
    expect(notAcceptable.status).toBe(406);
    const raw = await fetch(`${stack.base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body });
    expect(raw.status).toBe(200);
    expect(raw.headers.get("mcp-session-id")).toBeNull();
    expect(((await raw.json()) as { result: { tools: unknown[] } }).result.tools.length).toBe(MCP_TOOLS.length + 1); // and get_price
    const garbage = await fetch(`${stack.base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{not json" });
    expect(garbage.status).toBe(400);
    const large = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(70_000) } });
    const tooLarge = await fetch(`${stack.base}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: large });
    expect(tooLarge.status).toBe(413);
  });
});
