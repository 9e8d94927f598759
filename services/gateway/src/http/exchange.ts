import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express, Request, Response } from "express";
import { clientAddress, clientOf, forwardedAddress } from "./client-address.js";

/**
 * A request and its response, as node made them or as express gave them. Express's helpers
 * (req.query, req.ip, res.send, ...) come from express's prototypes, which express gives each
 * request with Object.setPrototypeOf; V8 then remakes both objects' hidden classes and every
 * later access to them (node's own HTTP code included) is slower: about 0.04 ms of the 0.09 ms
 * of gateway CPU a licensed small read cost, measured. A read a principal's tier covers is
 * served with node's own objects; anything that answers through express (an error body, a
 * 402, every other route) asks for express's first, and gets what express's app and router
 * would have made of the request.
 */
export class Exchange {
  private expressed: { req: Request; res: Response } | null;

  private constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly app: Express | null,
    expressed: { req: Request; res: Response } | null,
  ) {
    this.expressed = expressed;
  }

  /** A request express's router already set up. */
  static routed(req: Request, res: Response): Exchange {
    return new Exchange(req, res, null, { req, res });
  }

  /** A request of a catalogue path that bypassed the router (exactRoutes). */
  static bare(app: Express, req: IncomingMessage, res: ServerResponse): Exchange {
    return new Exchange(req, res, app, null);
  }

  /** The client address the limits count (clientOf), without making express's objects of node's. */
  client(): string {
    if (this.expressed) return clientOf(this.expressed.req);
    return clientAddress(forwardedAddress(this.req, Number(this.app!.get("trust proxy")) || 0));
  }

  /** express's request and response: what express's app and router give a request that matched a route. */
  express(): { req: Request; res: Response } {
    if (this.expressed) return this.expressed;
    const app = this.app!;
    const req = this.req as Request;
    const res = this.res as Response;
    req.res = res;
    res.req = req;
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    res.locals ??= Object.create(null) as Response["locals"];
    req.originalUrl = req.url;
    req.baseUrl = "";
    req.params = {};
    return (this.expressed = { req, res });
  }

  /**
   * The request's query, parsed as express parses it (its "simple" parser, node's querystring).
   * A target without a query needs no parser: express's gives an empty object then.
   */
  query(): unknown {
    if (!this.expressed && this.req.url !== undefined && !this.req.url.includes("?")) return {};
    return this.express().req.query;
  }
}
