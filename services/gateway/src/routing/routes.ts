import { BOARD_EVENTS_PATH, MCP_LIVE_PATH, RECEIPT_PATH, ROUTES, viewFor, type Route } from "@board/proto";
import type { Express, Request, Response } from "express";
import { DISCOVERY_HANDLERS } from "../discovery/index.js";
import { serveEvents, type EventStreams } from "../events/index.js";
import { serveLandingPage } from "../landing/page.js";
import { mountChartPages } from "../pages/chart-page-routes.js";
import { answerPreflight, isPreflight, methodsOf } from "../http/cors.js";
import { setDeprecationHeaders } from "../http/deprecation.js";
import { sendError } from "../http/errors.js";
import { Exchange } from "../http/exchange.js";
import { getSignInNonce, postFreeKey, postSignInVerify } from "../reads/keys.js";
import { authorizationServerMetadata, getJwks, postToken, protectedResourceMetadata, protectedResourceMetadataPath, sendMetadata } from "../oauth/server.js";
import { getAuthorize, postAuthorize } from "../oauth/authorize.js";
import { postRegister } from "../oauth/register.js";
import { sendCatalogue } from "../reads/payment-required.js";
import { getReceipt } from "../reads/receipt.js";
import { stringParams } from "../http/query-params.js";
import { serveRead, type ReadDeps } from "../reads/read.js";

/** An MCP endpoint. mcp/ builds on http/, so the wiring hands it in rather than this file importing it. */
export interface McpEndpoint {
  serve(req: Request, res: Response): Promise<void>;
}

/** What the routes are answered with: the reads' peers on the bus, this replica's event streams and its MCP endpoint. */
export interface RouteDeps extends ReadDeps {
  events: EventStreams;
  mcp: McpEndpoint;
  /** /mcp/live: the live tier for hosts that signed in (a bearer for that resource). */
  mcpLive: McpEndpoint;
}

type Handler = (deps: RouteDeps, req: Request, res: Response, query: Record<string, unknown>) => Promise<void> | void;

/** The routes answered by identity rather than the board. */
const AUTH_HANDLERS: Record<string, Handler> = {
  "/api/key": (deps, req, res) => postFreeKey(deps, req, res),
  "/api/auth/nonce": (deps, req, res, q) => getSignInNonce(deps, req, res, q as { address: string; chain: string }),
  "/api/auth/verify": (deps, req, res) => postSignInVerify(deps, req, res),
  "/oauth/token": (deps, req, res) => postToken(deps, req, res),
  "/oauth/jwks": (deps, req, res) => getJwks(deps, req, res),
  "/oauth/authorize": (deps, req, res) => (req.method === "POST" ? postAuthorize(deps, req, res) : getAuthorize(deps, req, res)),
  "/oauth/register": (deps, req, res) => postRegister(deps, req, res),
  "/.well-known/oauth-authorization-server": (deps, _req, res) => sendMetadata(res, authorizationServerMetadata(deps.publicBaseUrl)),
  [protectedResourceMetadataPath("api")]: (deps, _req, res) => sendMetadata(res, protectedResourceMetadata(deps.publicBaseUrl, "api")),
  [protectedResourceMetadataPath("mcp_live")]: (deps, _req, res) => sendMetadata(res, protectedResourceMetadata(deps.publicBaseUrl, "mcp_live")),
};

/** Mounts every path of the route catalogue; what is not in it is a 404. */
export function mountRoutes(app: Express, deps: RouteDeps): void {
  for (const route of ROUTES) app.all(route.path, (req, res) => handleRoute(route, deps, Exchange.routed(req, res)));
  mountChartPages(app, deps);
  app.use((req: Request, res: Response) => sendError(res, "not_found", `There is no ${req.path}. The catalogue of reads is at /openapi.json and /llms.txt.`));
}

/** The answer of a route the board does not serve (the catalogue, the event stream, auth, MCP, the page, the documents); null for a board read. */
function otherAnswer(route: Route): Handler | null {
  if (route.path === "/api") return (deps, _req, res) => sendCatalogue(deps, res);
  if (route.path === BOARD_EVENTS_PATH) return (deps, req, res) => serveEvents(deps, req, res);
  if (route.path === RECEIPT_PATH) return (deps, req, res, q) => getReceipt(deps, req, res, q as { payer?: string; payment_id?: string });
  const auth = AUTH_HANDLERS[route.path];
  if (auth) return auth;
  if (route.path === MCP_LIVE_PATH) return (deps, req, res) => deps.mcpLive.serve(req, res);
  if (route.kind === "mcp") return (deps, req, res) => deps.mcp.serve(req, res);
  if (route.kind === "page") return (deps, req, res) => serveLandingPage(deps, req, res);
  const document = DISCOVERY_HANDLERS[route.path];
  if (document) return (deps, req, res) => document(deps, req, res);
  if (route.kind === "discovery") return (_deps, _req, res) => sendError(res, "not_implemented", `${route.path} is not available yet.`);
  return null;
}

/**
 * One request of a route, whatever its method: the route's own answer or why not. Only a board
 * read may be served with node's own request and response (Exchange); every other answer takes
 * express's first.
 */
export async function handleRoute(route: Route, deps: RouteDeps, x: Exchange): Promise<void> {
  // A browser's preflight asks before any request it sends cross-origin with our headers; it is
  // answered before the method check, which would refuse OPTIONS.
  if (isPreflight(x.req)) return answerPreflight(route, x.res);
  setDeprecationHeaders(route, x.res, deps.publicBaseUrl);
  const allowed = methodsOf(route);
  if (!allowed.list.includes(x.req.method!)) {
    const { res } = x.express();
    res.setHeader("Allow", allowed.header);
    return sendError(res, "method_not_allowed", `${route.path} accepts ${allowed.header}.`, { allowed_methods: [...allowed.list] });
  }
  const query = route.query.safeParse(x.query());
  if (!query.success) {
    const issue = query.error.issues[0];
    const param = String(issue?.path[0] ?? "query");
    return sendError(x.express().res, "invalid_query", `Query parameter '${param}': ${issue?.message ?? "invalid"}.`, { param });
  }
  const other = otherAnswer(route);
  if (other) {
    const { req, res } = x.express();
    return other(deps, req, res, query.data);
  }
  const { view, free } = viewFor(route, query.data);
  return serveRead(deps, x, route, view, stringParams(query.data), free);
}
