import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Request, Response } from "express";
import { clientOf } from "../http/client-address.js";
import { CREDENTIAL_HEADERS, MCP_SESSION_HEADER, requestHeader } from "../http/headers.js";
import type { ReadDeps } from "../reads/read.js";
import type { McpCaller } from "./call-tool.js";
import { readMessage, RPC, sendRpcError } from "./message.js";
import { buildMcpServer } from "./server.js";
import type { McpSessions } from "./sessions.js";

/** A tools/call carries at most an x402 payment in _meta: a few kilobytes. */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/** Who an MCP request comes from: its client address and its X-License-Key (the one credential MCP reads). */
export function callerOf(req: Request): McpCaller {
  const license = requestHeader(req.headers, CREDENTIAL_HEADERS.license)?.trim();
  return { address: clientOf(req), licenseKey: license || undefined };
}

const isJson = (req: Request) => /^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? "");

/**
 * A request without a session: its own server and transport, answered in plain JSON, on any
 * replica. The server lists and reads resources but cannot take subscriptions (nothing would
 * be there to notify).
 */
async function serveStateless(deps: ReadDeps, req: Request, res: Response, body?: unknown): Promise<void> {
  const server = buildMcpServer(deps, { caller: callerOf(req) });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_MESSAGE_BYTES });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/**
 * /mcp: Streamable HTTP, with sessions and without.
 * - An initialize (POST, no Mcp-Session-Id) opens a session on this replica, within its caps:
 *   the answer carries Mcp-Session-Id, and the session subscribes to resources and hears of
 *   their updates on its GET stream. Past a cap the initialize is answered without a session,
 *   and the client carries on statelessly (tools, resources read; no subscriptions).
 * - A request with Mcp-Session-Id goes to its session; an id this replica does not hold is 404,
 *   and the client initializes again (MCP's transport: the session ended, or lives elsewhere).
 * - Any other POST is answered statelessly, as before sessions: hosts that never initialize
 *   (a raw tools/call) keep working on any replica.
 */
export async function serveMcp(deps: ReadDeps, sessions: McpSessions, req: Request, res: Response): Promise<void> {
  const id = requestHeader(req.headers, MCP_SESSION_HEADER);
  if (id !== undefined) {
    const session = sessions.get(id);
    if (!session) return sendRpcError(res, 404, RPC.sessionNotFound, "Session not found: it ended, or it lives on another replica. Initialize a new session (POST initialize without Mcp-Session-Id).");
    if (req.method !== "POST" || !isJson(req)) return session.handle(req, res);
    // Read here to refuse a batch of calls before the transport answers it.
    const message = await checkedMessage(req, res);
    if (message) return session.handle(req, res, message.body);
    return;
  }
  // As the SDK's own transport answers it: a stream or an end needs a session to be of.
  if (req.method !== "POST")
    return sendRpcError(res, 400, RPC.serverError, `Bad Request: Mcp-Session-Id header is required. GET opens a session's notification stream and DELETE ends it; POST an initialize to open a session.`);
  // Only a JSON body can be an initialize; anything else goes to the transport as it is, which words the refusal.
  if (!isJson(req)) return serveStateless(deps, req, res);
  const message = await checkedMessage(req, res);
  if (!message) return;
  if (!isInitializeRequest(message.body)) return serveStateless(deps, req, res, message.body);
  const session = await sessions.open(req);
  if (typeof session === "string") return serveStateless(deps, req, res, message.body);
  await session.handle(req, res, message.body);
  // An initialize the transport refused (its Accept header, its params) opened nothing: free the slot.
  if (!session.id) await session.close();
}

/**
 * A POST's JSON-RPC message, read and checked; null when it was refused (the answer is sent):
 * too large, not JSON, or a batch holding a tools/call. Each call is a read with its own
 * burst check and perhaps a payment, so one POST carries at most one (MCP since 2025-06-18
 * has no batches at all; older hosts send calls one by one).
 */
export async function checkedMessage(req: Request, res: Response): Promise<{ body: unknown } | null> {
  const message = await readMessage(req, MAX_MESSAGE_BYTES);
  if (message.kind === "too_large") {
    sendRpcError(res, 413, RPC.serverError, `Payload Too Large: the message is larger than ${MAX_MESSAGE_BYTES} bytes.`);
    return null;
  }
  if (message.kind === "not_json") {
    sendRpcError(res, 400, RPC.parseError, "Parse error: Invalid JSON");
    return null;
  }
  if (batchesCalls(message.body)) {
    sendRpcError(res, 400, RPC.invalidRequest, "Invalid Request: a JSON-RPC batch may not carry tools/call. Send one tools/call per POST.");
    return null;
  }
  return { body: message.body };
}

/** Whether a message is a JSON-RPC batch (an array) with a tools/call in it. */
export const batchesCalls = (body: unknown): boolean =>
  Array.isArray(body) && body.some((m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "tools/call");

/** /mcp as the routes call it. */
export const mcpEndpoint = (deps: ReadDeps, sessions: McpSessions) => ({ serve: (req: Request, res: Response) => serveMcp(deps, sessions, req, res) });
