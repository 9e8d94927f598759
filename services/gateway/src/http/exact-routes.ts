import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ROUTE_BY_PATH, type Route } from "@board/proto";
import type { Express, Response } from "express";
import { Exchange } from "./exchange.js";
import type { ObserveRequest } from "./telemetry.js";

export type RouteHandler = (route: Route, x: Exchange) => Promise<void>;

/**
 * The server's request listener. A request whose path (its target up to the query, as the
 * router reads it) is exactly a catalogue path goes straight to that route's handler,
 * observed as the app observes every request, without express's router: the router finds the
 * same route by walking its layers, one regular expression each, about a tenth of the
 * gateway's CPU per licensed read, measured. The handler gets express's request and response
 * only when it answers through express (Exchange). Every other request (another case, a
 * trailing slash, an unknown path, an absolute-form target) goes through express as before,
 * and finds the same handlers.
 */
export function exactRoutes(app: Express, observe: ObserveRequest, handle: RouteHandler, failed: (err: unknown, res: Response) => void): RequestListener {
  return (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const url = incoming.url ?? "";
    const q = url.indexOf("?");
    const route = ROUTE_BY_PATH.get(q < 0 ? url : url.slice(0, q));
    if (!route) return void app(incoming, outgoing);
    const x = Exchange.bare(app, incoming, outgoing);
    // As express 5 does with a handler's rejection: the app's error handler answers it.
    observe(incoming, outgoing, route.path, () => route.path, () => void handle(route, x).catch((err: unknown) => failed(err, x.express().res)));
  };
}
