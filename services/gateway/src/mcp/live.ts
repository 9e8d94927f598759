import { MCP_TOOLS, type Principal } from "@board/proto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Request, Response } from "express";
import { hasMalformedBearer } from "../access/credentials.js";
import { resolveAccess } from "../access/principal.js";
import { clientOf } from "../http/client-address.js";
import { sendError, sendUpstreamError } from "../http/errors.js";
import { CREDENTIAL_HEADERS, requestHeader } from "../http/headers.js";
import { protectedResourceMetadataPath } from "../oauth/server.js";
import { withinAnonymousBurst, type ReadDeps } from "../reads/read.js";
import { checkedMessage } from "./endpoint.js";
import { buildMcpServer } from "./server.js";

/** The same bound as /mcp: a live-tier call carries a few arguments at most. */
const MAX_MESSAGE_BYTES = 64 * 1024;

/** What a signed-in host sees: the live tier and the free reads (the per-call x402 tools stay at /mcp). */
const LIVE_TOOLS = MCP_TOOLS.filter((t) => t.access === "live_license" || t.access === "free");

const INSTRUCTIONS =
  "The Scored Market Board's live tier, for a live-feed license holder who signed in: get_engine_feed (the engine's feed: stops, targets, conviction, lanes), " +
  "get_live_rules and get_live_setup (one name or every name), refreshed every 5 to 9 minutes in market hours; and the free reads " +
  "(get_delayed_board, get_free_board, get_symbols, get_status, get_board_state). Poll get_board_state and read again only when a hash changes. " +
  "Research, not investment advice.";

/** RFC 6750 3 / RFC 9728 5.1: where a host learns how to sign in for this resource. */
function challenge(deps: ReadDeps, error?: "invalid_token" | "insufficient_scope"): string {
  const metadata = new URL(protectedResourceMetadataPath("mcp_live"), deps.publicBaseUrl.origin).toString();
  return `Bearer realm="board"${error ? `, error="${error}"` : ""}, scope="board:live", resource_metadata="${metadata}"`;
}

/**
 * POST /mcp/live: the live tier for MCP hosts that sign in (the MCP authorization
 * specification). The bearer is checked before any message is read: none gets 401 with the
 * challenge that starts the host's sign-in; a token not asked for this resource, expired or
 * of a lapsed license gets 401 invalid_token; a scanner license's 403. Then the same
 * stateless server as /mcp, with the live and free tools, on the signed-in license.
 */
export async function serveMcpLive(deps: ReadDeps, req: Request, res: Response): Promise<void> {
  const auth = requestHeader(req.headers, CREDENTIAL_HEADERS.authorization);
  const bearer = auth ? /^Bearer[ \t]+(\S+)\s*$/i.exec(auth)?.[1] : undefined;
  if (!bearer) {
    const malformed = hasMalformedBearer(req);
    res.setHeader("WWW-Authenticate", challenge(deps, malformed ? "invalid_token" : undefined));
    if (malformed) return sendError(res, "token_invalid", "The bearer token is malformed. Sign in again.");
    return sendError(res, "credential_required", "/mcp/live is the live tier: sign in with a live-feed license (OAuth, see the WWW-Authenticate challenge) and send the token as Authorization: Bearer.");
  }
  // The client address's burst before identity is asked about the token (as every keyed request).
  if (!(await withinAnonymousBurst(deps, req, res, "closed"))) return;
  let signedIn: Principal;
  try {
    const access = await resolveAccess(deps.nc, deps.timeoutMs, { bearer }, deps.principals, "mcp_live", deps.refused);
    if (access.kind === "refused") {
      res.setHeader("WWW-Authenticate", challenge(deps, "invalid_token"));
      return sendError(res, "token_invalid", access.message);
    }
    signedIn = access.principal;
  } catch (err) {
    return sendUpstreamError(res, err);
  }
  if (signedIn.license_kind !== "live_feed") {
    res.setHeader("WWW-Authenticate", challenge(deps, "insufficient_scope"));
    return sendError(res, "forbidden", "/mcp/live needs a live-feed license; a scanner license does not open it.");
  }

  const server = buildMcpServer(deps, { caller: { address: clientOf(req), licenseKey: undefined, signedIn }, tools: LIVE_TOOLS, instructions: INSTRUCTIONS });
  // The transport as /mcp's: stateless, plain JSON answers, so any replica answers any call.
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_MESSAGE_BYTES });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  if (req.method !== "POST" || !/^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? "")) return transport.handleRequest(req, res);
  const message = await checkedMessage(req, res);
  if (message) await transport.handleRequest(req, res, message.body);
}

/** /mcp/live as the routes call it. */
export const mcpLiveEndpoint = (deps: ReadDeps) => ({ serve: (req: Request, res: Response) => serveMcpLive(deps, req, res) });
