import { API_VERSION, MCP_TOOLS, type McpTool } from "@board/proto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { listedTool } from "../discovery/mcp-tools.js";
import type { ReadDeps } from "../http/read.js";
import { callTool, type McpCaller } from "./call-tool.js";

const INSTRUCTIONS =
  "The Scored Market Board: scores for about 565 US stocks, ETFs and two crypto assets. " +
  "Free: get_delayed_board (the whole board, one trading day old), get_free_board, get_symbols, get_status, get_board_state. " +
  "Live reads: the *_live tools, paid per call over x402 (call without payment for the requirements, then again with _meta[\"x402/payment\"]). " +
  "With a live-feed license on X-License-Key: get_engine_feed, get_live_rules, get_live_setup. " +
  "A served result's structuredContent is the read's JSON, as each tool's outputSchema declares. " +
  "Poll get_board_state and buy only when a hash changes. Research, not investment advice.";

export interface McpServerOptions {
  /** Who is asking: the client address and the one credential MCP reads. */
  caller: McpCaller;
  /** The tools this server lists and calls (every tool of /mcp by default). */
  tools?: readonly McpTool[];
  /** The server's instructions to the host (the board's by default). */
  instructions?: string;
}

/**
 * An MCP server for one caller, not yet connected to a transport: tools/list and tools/call of
 * its tool set. Every endpoint that speaks MCP builds its servers here.
 */
export function buildMcpServer(deps: ReadDeps, opts: McpServerOptions): Server {
  const tools = opts.tools ?? MCP_TOOLS;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listed = tools.map(listedTool);
  const server = new Server(
    { name: "scored-market-board", title: "Scored Market Board", version: API_VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: opts.instructions ?? INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, (call) => callTool(deps, opts.caller, byName, call.params.name, call.params.arguments, call.params._meta));
  return server;
}
