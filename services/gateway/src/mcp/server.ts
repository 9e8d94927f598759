import { API_VERSION, MCP_TOOLS, type McpTool } from "@board/proto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type IsomorphicHeaders,
} from "@modelcontextprotocol/sdk/types.js";
import { getPrompt, LISTED_PROMPTS, PROMPTS_CAPABILITY } from "../discovery/mcp-prompts.js";
import { LISTED_RESOURCES, RESOURCES_CAPABILITY } from "../discovery/mcp-resources.js";
import { listedTool } from "../discovery/mcp-tools.js";
import { PRICE_TOOL, PRICE_TOOL_NAME } from "../discovery/price-tool.js";
import type { ReadDeps } from "../reads/read.js";
import { callTool, type McpCaller } from "./call-tool.js";
import { callPriceTool } from "./price-call.js";
import { readResource, resourceAt } from "./resources.js";

const INSTRUCTIONS =
  "The Scored Market Board: scores for about 565 US stocks, ETFs and two crypto assets. " +
  "Free: get_delayed_board (the whole board, one trading day old), get_free_board, get_symbols, get_status, get_board_state, and the same free views as resources " +
  "(board://delayed, board://free, board://symbols, board://state; subscribe to board://state to hear of every board published). " +
  "Live reads: the *_live tools, paid per call over x402 (call without payment for the requirements, then again with _meta[\"x402/payment\"]). " +
  "With a live-feed license on X-License-Key: get_engine_feed, get_live_rules, get_live_setup. " +
  "A served result's structuredContent is the read's JSON, as each tool's outputSchema declares. " +
  "get_price tells what each call costs, free. Poll get_board_state and buy only when a hash changes; the prompts (prompts/list) carry these uses. Research, not investment advice.";

/**
 * One JSON Schema validator for every server of this process: the SDK makes a new Ajv for each
 * server otherwise, and a stateless request builds a server (measured: a fifth of a tools/call's
 * CPU). It compiles only what a server asks it (elicitation schemas), keeping nothing per caller.
 */
const VALIDATOR = new AjvJsonSchemaValidator();
/** Each tool set's tools/list entries, made once (get_price after them, on a server that sells per call). */
const LISTED = new WeakMap<readonly McpTool[], ReturnType<typeof listedTool>[]>();

/** What a session does with resources/subscribe and resources/unsubscribe (checked URIs). */
export interface ResourceSubscriptions {
  subscribe(uri: string): void;
  unsubscribe(uri: string): void;
}

export interface McpServerOptions {
  /** Who is asking: the client address and the one credential MCP reads; for a session, read from each request's headers. */
  caller: McpCaller | ((headers: IsomorphicHeaders | undefined) => McpCaller);
  /** The tools this server lists and calls (every tool of /mcp by default). */
  tools?: readonly McpTool[];
  /** The server's instructions to the host (the board's by default). */
  instructions?: string;
  /** A session's subscriptions: with them the server declares resources.subscribe; without (stateless), resources are listed and read only. */
  subscriptions?: ResourceSubscriptions;
}

/**
 * An MCP server, not yet connected to a transport: tools/list and tools/call of its tool set,
 * the free views as resources, and, where it sells per call, get_price and the prompts. Every endpoint that speaks MCP builds its servers here.
 */
export function buildMcpServer(deps: ReadDeps, opts: McpServerOptions): Server {
  const tools = opts.tools ?? MCP_TOOLS;
  const byName = new Map(tools.map((t) => [t.name, t]));
  let listed = LISTED.get(tools);
  const sells = tools.some((t) => t.access === "x402");
  if (!listed) LISTED.set(tools, (listed = [...tools.map(listedTool), ...(sells ? [PRICE_TOOL] : [])]));
  const toolsListed = listed;
  const { caller, subscriptions } = opts;
  const callerAt = (headers: IsomorphicHeaders | undefined) => (typeof caller === "function" ? caller(headers) : caller);
  const server = new Server(
    { name: "scored-market-board", title: "Scored Market Board", version: API_VERSION },
    {
      capabilities: { tools: { listChanged: false }, ...(sells ? { prompts: PROMPTS_CAPABILITY } : {}), resources: subscriptions ? RESOURCES_CAPABILITY : { ...RESOURCES_CAPABILITY, subscribe: false } },
      instructions: opts.instructions ?? INSTRUCTIONS,
      jsonSchemaValidator: VALIDATOR,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolsListed }));
  server.setRequestHandler(CallToolRequestSchema, (call, extra) =>
    sells && call.params.name === PRICE_TOOL_NAME
      ? callPriceTool(call.params.arguments)
      : callTool(deps, callerAt(extra.requestInfo?.headers), byName, call.params.name, call.params.arguments, call.params._meta),
  );
  // The prompts are the paid tools' intended use: a server without them (/mcp/live) has none.
  if (sells) {
    server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...LISTED_PROMPTS] }));
    server.setRequestHandler(GetPromptRequestSchema, (get) => getPrompt(get.params.name, get.params.arguments));
  }
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [...LISTED_RESOURCES] }));
  server.setRequestHandler(ReadResourceRequestSchema, (read, extra) => readResource(deps, callerAt(extra.requestInfo?.headers), read.params.uri));
  if (subscriptions) {
    server.setRequestHandler(SubscribeRequestSchema, (sub) => {
      subscriptions.subscribe(resourceAt(sub.params.uri).uri);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, (sub) => {
      subscriptions.unsubscribe(resourceAt(sub.params.uri).uri);
      return {};
    });
  }
  return server;
}
