import { DiscoveryResourcesQuery, OUTPUT_EXAMPLES, PAID_ROUTES, paymentsRequirements, sellingUrl, type Route } from "@board/proto";
import { request } from "@board/service-kit";
import type { Request, Response } from "express";
import type { BoardViewDeps } from "../reads/board-view.js";
import { sendError, sendUpstreamError } from "../http/errors.js";
import { SERVICE_TITLE } from "./terms.js";
import { X402PaymentRequired } from "./wire-schemas.js";

/**
 * GET /discovery/resources: the paid resources as an x402 bazaar lists them (a facilitator's
 * GET /discovery/resources, which @x402/extensions' withBazaar client reads): each resource's
 * URL, its offers (`accepts`) and its bazaar declaration as its 402 gives them, so a directory
 * pointed at this host lists what a buyer will be offered. The declaration's output example is
 * a served board's read (proto's OUTPUT_EXAMPLES): the 402's own is only the body's shape, since it
 * travels in a header and is echoed back with the payment.
 */

/** Catalogue metadata (the bazaar's serviceName and tags: printable ASCII, at most 32 characters, 5 tags). */
const SERVICE_TAGS = ["finance", "market-data", "research"];
/** The listing is remade at most this often: the offers change only with the payments configuration. */
const LISTING_SECONDS = 60;
const MAX_LIMIT = 100;

/** One listed resource (the bazaar's DiscoveryResource). */
export interface ListedResource {
  resource: string;
  type: "http";
  x402Version: 2;
  accepts: Record<string, unknown>[];
  lastUpdated: string;
  description?: string;
  mimeType?: string;
  serviceName: string;
  tags: string[];
  extensions: { bazaar: unknown };
}

/** The bazaar's DiscoveryResourcesResponse. */
export interface DiscoveryResourcesList {
  x402Version: 2;
  items: ListedResource[];
  pagination: { limit: number; offset: number; total: number };
}

/** The route's 402 as payments makes it for its selling URL, read from its PAYMENT-REQUIRED header. */
async function listed(deps: BoardViewDeps, route: Route, base: URL, now: string): Promise<ListedResource> {
  const query = new URL(sellingUrl(route, base)).search.slice(1);
  const reply = await request(deps.nc, paymentsRequirements, { path: route.path, query }, { timeoutMs: deps.timeoutMs });
  const header = reply.headers["PAYMENT-REQUIRED"];
  if (header === undefined) throw new Error(`payments gave ${route.path} no PAYMENT-REQUIRED`);
  const required = X402PaymentRequired.parse(JSON.parse(Buffer.from(header, "base64").toString("utf8")));
  const bazaar = required.extensions?.["bazaar"];
  if (bazaar === undefined) throw new Error(`payments declared no bazaar extension for ${route.path}`);
  return {
    resource: required.resource.url,
    type: "http",
    x402Version: 2,
    accepts: required.accepts,
    lastUpdated: now,
    ...(required.resource.description ? { description: required.resource.description } : {}),
    ...(required.resource.mimeType ? { mimeType: required.resource.mimeType } : {}),
    serviceName: SERVICE_TITLE,
    tags: SERVICE_TAGS,
    // Only the declaration: the 402's other extensions are per request (a sign-in challenge's nonce) or per payment.
    extensions: { bazaar: withExample(bazaar, route) },
  };
}

/** The declaration with its output example taken from a served board's read of the route. */
function withExample(bazaar: unknown, route: Route): unknown {
  const example = OUTPUT_EXAMPLES[route.path];
  const d = bazaar as { info?: { output?: Record<string, unknown> } };
  if (example === undefined || !d.info?.output) return bazaar;
  return { ...d, info: { ...d.info, output: { ...d.info.output, example } } };
}

const listings = new Map<string, { at: number; items: Promise<ListedResource[]> }>();

/** Every paid resource listed, made at most once a minute per public origin (concurrent requests share one making). */
export function listedResources(deps: BoardViewDeps, base: URL, nowMs = Date.now()): Promise<ListedResource[]> {
  const kept = listings.get(base.origin);
  if (kept && nowMs - kept.at < LISTING_SECONDS * 1000) return kept.items;
  const now = new Date(nowMs).toISOString();
  const items = Promise.all(PAID_ROUTES.map((route) => listed(deps, route, base, now)));
  listings.set(base.origin, { at: nowMs, items });
  // A failed making is not kept: the next request tries again.
  items.catch(() => listings.delete(base.origin));
  return items;
}

/** One page of the listing, as the bazaar's list answers. */
export function page(items: readonly ListedResource[], q: DiscoveryResourcesQuery): DiscoveryResourcesList {
  const offers = (i: ListedResource, key: "network" | "scheme" | "payTo", value: string | undefined) =>
    value === undefined || i.accepts.some((a) => String(a[key]).toLowerCase() === value.toLowerCase());
  const matching = items.filter((i) => (q.type === undefined || i.type === q.type) && offers(i, "network", q.network) && offers(i, "scheme", q.scheme) && offers(i, "payTo", q.payTo));
  const offset = q.offset ?? 0;
  const limit = q.limit ?? MAX_LIMIT;
  return { x402Version: 2, items: matching.slice(offset, offset + limit), pagination: { limit, offset, total: matching.length } };
}

export async function getDiscoveryResources(deps: BoardViewDeps & { publicBaseUrl: URL }, req: Request, res: Response): Promise<void> {
  const q = DiscoveryResourcesQuery.safeParse(req.query);
  if (!q.success) {
    const param = String(q.error.issues[0]?.path[0] ?? "query");
    return sendError(res, "invalid_query", `Query parameter '${param}': ${q.error.issues[0]?.message ?? "invalid"}.`, { param });
  }
  let items: ListedResource[];
  try {
    items = await listedResources(deps, deps.publicBaseUrl);
  } catch (err) {
    return sendUpstreamError(res, err);
  }
  res.status(200).type("application/json").setHeader("Cache-Control", `public, max-age=${LISTING_SECONDS}`);
  res.send(req.method === "HEAD" ? undefined : JSON.stringify(page(items, q.data)));
}
