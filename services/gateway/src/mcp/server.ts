import { API_VERSION } from "@board/proto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Request, Response } from "express";
import { CREDENTIAL_HEADERS, requestHeader } from "../http/headers.js";
import type { ReadDeps } from "../http/read.js";
import { callTool, type McpCaller } from "./call-tool.js";
import { LISTED_TOOLS } from "./tool-list.js";

/** A tools/call carries at most an x402 payment in _meta: a few kilobytes. */
const MAX_MESSAGE_BYTES = 64 * 1024;

const INSTRUCTIONS =
  "The Scored Market Board: scores for about 565 US stocks, ETFs and two crypto assets. " +
  "Free: get_delayed_board (the whole board, one trading day old), get_free_board, get_symbols, get_status, get_board_state. " +
  "Live reads: the *_live tools, paid per call over x402 (call without payment for the requirements, then again with _meta[\"x402/payment\"]). " +
  "With a live-feed license on X-License-Key: get_engine_feed, get_live_rules, get_live_setup. " +
  "Poll get_board_state and buy only when a hash changes. Research, not investment advice.";

/**
 * POST /mcp: Streamable HTTP, stateless. Each request gets its own server and transport, so no
 * session lives in a replica's memory and any replica answers any call; replies are plain
 * JSON (no stream is held open).
 */
export async function serveMcp(deps: ReadDeps, req: Request, res: Response): Promise<void> {
  const license = requestHeader(req.headers, CREDENTIAL_HEADERS.license)?.trim();
  const caller: McpCaller = { address: req.ip ?? "unknown", licenseKey: license || undefined };
  const server = new Server({ name: "scored-market-board", title: "Scored Market Board", version: API_VERSION }, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...LISTED_TOOLS] }));
  server.setRequestHandler(CallToolRequestSchema, (call) => callTool(deps, caller, call.params.name, call.params.arguments, call.params._meta));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_MESSAGE_BYTES });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}
