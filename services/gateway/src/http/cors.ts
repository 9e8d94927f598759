import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ROUTES, type Route } from "@board/proto";
import { ALLOW_HEADER, CORS_SAFELISTED_RESPONSE_HEADERS, CREDENTIAL_HEADERS, DEPRECATION_HEADERS, PROTOCOL_REQUEST_HEADERS, RESPONSE_HEADERS } from "./headers.js";

/**
 * CORS (the Fetch standard's): every answer may be read by a page of any origin. Credentials
 * travel in request headers, never in cookies, so `*` is safe and no Allow-Credentials is sent
 * (a browser then refuses `credentials: "include"`, which nothing here needs).
 */

/** Each name once, in order, whatever its case (a browser compares them case-insensitively). */
const unique = (names: readonly string[]): string[] => [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];

/** The request headers a cross-origin page may send: every credential and payment header the API reads, and the protocol ones. */
export const CORS_REQUEST_HEADERS: readonly string[] = unique([...Object.values(CREDENTIAL_HEADERS), ...PROTOCOL_REQUEST_HEADERS]);

const SAFELISTED = new Set(CORS_SAFELISTED_RESPONSE_HEADERS.map((n) => n.toLowerCase()));

/**
 * The response headers a cross-origin page may read beyond the safelisted ones: every header
 * the API declares (offers, challenges, receipts, limits, freshness, ETag), a 405's Allow and a
 * deprecated route's Deprecation and Sunset.
 */
export const CORS_EXPOSED_HEADERS: readonly string[] = unique(
  [...Object.keys(RESPONSE_HEADERS).map((n) => n.split(".")[0]!), ALLOW_HEADER, ...DEPRECATION_HEADERS].filter((n) => !SAFELISTED.has(n.toLowerCase())),
);

/** How long a browser may keep a preflight's answer (Chromium keeps it at most 2 hours, Firefox a day). */
export const CORS_MAX_AGE_SECONDS = 86_400;

// The header values, joined once: every answer carries two of them.
const ALLOW_ORIGIN = "*";
const EXPOSE = CORS_EXPOSED_HEADERS.join(", ");
const ALLOW_HEADERS = CORS_REQUEST_HEADERS.join(", ");
const MAX_AGE = String(CORS_MAX_AGE_SECONDS);

interface Methods {
  readonly list: readonly string[];
  /** The list as a header value. */
  readonly header: string;
}

/** The methods a route answers: its catalogued ones, and HEAD wherever GET is. */
function methodsFor(route: Route): Methods {
  const list = route.methods.includes("GET") && !route.methods.includes("HEAD") ? [...route.methods, "HEAD"] : [...route.methods];
  return { list, header: list.join(", ") };
}

// Each catalogued route's, made once rather than per request.
const METHODS: ReadonlyMap<Route, Methods> = new Map(ROUTES.map((route) => [route, methodsFor(route)]));

/** The methods `route` answers (the 405's Allow, a preflight's Allow-Methods). */
export const methodsOf = (route: Route): Methods => METHODS.get(route) ?? methodsFor(route);

/**
 * The server's listener with the CORS headers on every answer, set before anything else can
 * answer: node's own responses (exactRoutes), express's, the router's 404, the error handler,
 * the MCP transport. A handler's own headers are added beside them.
 */
export function withCors(listener: RequestListener): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader("Access-Control-Allow-Origin", ALLOW_ORIGIN);
    res.setHeader("Access-Control-Expose-Headers", EXPOSE);
    listener(req, res);
  };
}

/** A CORS preflight: an OPTIONS naming the method it asks for, from a page of some origin. Any other OPTIONS is an ordinary request. */
export const isPreflight = (req: IncomingMessage): boolean =>
  req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined && req.headers.origin !== undefined;

/**
 * The preflight's answer for a catalogued route, whatever the method asked: the route's
 * methods and every request header this API reads. The browser checks them and refuses what
 * they do not name.
 */
export function answerPreflight(route: Route, res: ServerResponse): void {
  res.statusCode = 204;
  res.setHeader("Access-Control-Allow-Methods", methodsOf(route).header);
  res.setHeader("Access-Control-Allow-Headers", ALLOW_HEADERS);
  res.setHeader("Access-Control-Max-Age", MAX_AGE);
  res.end();
}
