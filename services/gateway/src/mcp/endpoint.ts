import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Request, Response } from "express";
import { CREDENTIAL_HEADERS, requestHeader } from "../http/headers.js";
import type { ReadDeps } from "../http/read.js";
import type { McpCaller } from "./call-tool.js";
import { buildMcpServer } from "./server.js";

/** A tools/call carries at most an x402 payment in _meta: a few kilobytes. */
const MAX_MESSAGE_BYTES = 64 * 1024;

/** Who an MCP request comes from: its client address and its X-License-Key (the one credential MCP reads). */
export function callerOf(req: Request): McpCaller {
  const license = requestHeader(req.headers, CREDENTIAL_HEADERS.license)?.trim();
  return { address: req.ip ?? "unknown", licenseKey: license || undefined };
}

/**
 * POST /mcp: Streamable HTTP, stateless. Each request gets its own server and transport, so no
 * session lives in a replica's memory and any replica answers any call; replies are plain
 * JSON (no stream is held open).
 */
async function serveMcp(deps: ReadDeps, req: Request, res: Response): Promise<void> {
  const server = buildMcpServer(deps, { caller: callerOf(req) });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_MESSAGE_BYTES });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/** /mcp as the routes call it. */
export const mcpEndpoint = (deps: ReadDeps) => ({ serve: (req: Request, res: Response) => serveMcp(deps, req, res) });
