import type { IncomingMessage, ServerResponse } from "node:http";
import { gunzipSync } from "node:zlib";
import { freshnessHeaders } from "@board/market-calendar";
import { boardRead, MAX_IF_NONE_MATCH_CHARS, type BoardReadMeta, type ContentEncoding, type Delivery, type ViewName } from "@board/proto";
import { busInstrumentsOf, isBusError, requestBytes, type BytesReply, type NatsConnection } from "@board/service-kit";
import type { Request, Response } from "express";
import type { RefusedCredentials } from "../access/refused-credentials.js";
import type { ResolvedPrincipals } from "../access/resolved-principals.js";
import { preferredEncoding } from "../http/encoding.js";
import { sendUpstreamError } from "../http/errors.js";
import type { SharedReads } from "../http/shared-reads.js";
import { ViewTemplates } from "../http/view-templates.js";

export interface BoardViewDeps {
  nc: NatsConnection;
  timeoutMs: number;
  /** The views this gateway keeps; none: every read carries its body. */
  views?: ViewTemplates;
  /** License and bearer principals identity verified, kept a few seconds; none: every read asks identity. */
  principals?: ResolvedPrincipals;
  /** Credentials identity refused as unknown or invalid, refused again for a short while without asking; none: every refusal asks identity. */
  refused?: RefusedCredentials;
  /** Identical reads in flight at once, answered by one board read; none: every read asks the board. */
  shared?: SharedReads<ServedView>;
}

/** One board.v1.read reply: its metadata and body as the bus carried them. */
export type BoardViewReply = BytesReply<BoardReadMeta>;

/** A view as this gateway sends it: its metadata and its body in parts, sent in order (ViewTemplates.body). */
export interface ServedView {
  meta: BoardReadMeta;
  body: readonly Uint8Array[];
}

/** The body of a served view as one buffer, for the few that change it (the free tiers' tier block). */
export const wholeBody = (view: ServedView): Buffer => Buffer.concat(view.body);

/**
 * Asks the board for a view's bytes in the encoding the client accepts. When this gateway
 * keeps the view's bytes, it names their ETag and the board sends only this read's freshness
 * while they are current. Throws BusError.
 */
export async function readBoardView(
  deps: BoardViewDeps,
  req: IncomingMessage,
  view: ViewName,
  params: Record<string, string>,
  opts: { conditional: boolean; encoding?: ContentEncoding; paid?: boolean },
): Promise<ServedView> {
  // An If-None-Match longer than any list of our ETags cannot match one: the read is served whole.
  const header = opts.conditional ? req.headers["if-none-match"] : undefined;
  const ifNoneMatch = header !== undefined && header.length <= MAX_IF_NONE_MATCH_CHARS ? header : undefined;
  const encoding = opts.encoding ?? preferredEncoding(req.headers["accept-encoding"]);
  const read = () => readView(deps, view, params, encoding, ifNoneMatch);
  // While the bus is down a read fails at once on its own; joining a request sent before the
  // loss would hold it to that request's timeout.
  const connected = busInstrumentsOf(deps.nc).connected;
  if (!deps.shared || opts.paid || (connected && !connected())) return read();
  return deps.shared.run(`${ViewTemplates.key(view, params, encoding)}\n${ifNoneMatch ?? ""}`, read);
}

/** One read of a view from the board, through this gateway's kept bytes when it has them. */
async function readView(deps: BoardViewDeps, view: ViewName, params: Record<string, string>, encoding: ContentEncoding, ifNoneMatch: string | undefined): Promise<ServedView> {
  const ask = (cachedEtag: string | undefined, as: ContentEncoding = encoding) =>
    requestBytes(
      deps.nc,
      boardRead,
      { view, params, encoding: as, ...(ifNoneMatch ? { if_none_match: ifNoneMatch } : {}), ...(cachedEtag ? { cached_etag: cachedEtag } : {}) },
      { timeoutMs: deps.timeoutMs },
    );
  const served = (reply: BoardViewReply): ServedView => ({ meta: reply.meta, body: [reply.body] });
  const views = deps.views;
  if (!views) return served(await plainIfTooLarge(() => ask(undefined), () => ask(undefined, "gzip")));
  const key = ViewTemplates.key(view, params, encoding);
  // A view too large for the bus as plain JSON (a board of thousands of names) is carried gzipped
  // and kept here plain: later reads of it cross the bus as their freshness only.
  const whole = async () => {
    const reply = await plainIfTooLarge(() => ask(undefined), () => ask(undefined, "gzip"));
    views.remember(key, reply.meta, reply.body);
    return served(reply);
  };
  let reply: BoardViewReply;
  try {
    reply = await ask(views.etagOf(key));
  } catch (err) {
    if (isBusError(err) && err.code === "reply_too_large" && encoding === "identity") return whole();
    throw err;
  }
  if (reply.meta.cached) {
    const body = views.body(key, reply.meta);
    // Dropped between the ask and the answer (evicted, or replaced by another read's): ask whole.
    if (body) return { meta: reply.meta, body };
    return whole();
  }
  views.remember(key, reply.meta, reply.body);
  return served(reply);
}

/**
 * A plain read, or, when the board says the plain bytes would not fit on the bus, the same view
 * gzipped and inflated here: the very bytes the plain reply would have carried (a gzip view is
 * its plain body deflated, freshness included), with the plain template's split point.
 */
export async function plainIfTooLarge(plain: () => Promise<BoardViewReply>, gzipped: () => Promise<BoardViewReply>): Promise<BoardViewReply> {
  try {
    return await plain();
  } catch (err) {
    if (!(isBusError(err) && err.code === "reply_too_large")) throw err;
  }
  const gz = await gzipped();
  if (gz.meta.encoding !== "gzip" || gz.meta.status !== 200) return gz;
  const body = gunzipSync(gz.body);
  const { template, ...meta } = gz.meta;
  // The gzip template's size is the plain head's length: where this read's freshness begins.
  return { meta: { ...meta, encoding: "identity", ...(template?.size !== undefined && { template: { head_bytes: template.size } }) }, body };
}

/**
 * A paid read delivered again: the board version it bought, with the freshness it carried,
 * in its encoding when the client takes it (else plain: the same content).
 */
export async function readDelivered(deps: BoardViewDeps, req: IncomingMessage, view: ViewName, params: Record<string, string>, again: Delivery): Promise<ServedView> {
  const encoding = again.encoding === "gzip" && preferredEncoding(req.headers["accept-encoding"]) !== "gzip" ? "identity" : again.encoding;
  const ask = (as: ContentEncoding) => requestBytes(deps.nc, boardRead, { view, params, encoding: as, snapshot: again.snapshot, freshness: again.freshness }, { timeoutMs: deps.timeoutMs });
  const reply = encoding === "identity" ? await plainIfTooLarge(() => ask("identity"), () => ask("gzip")) : await ask(encoding);
  return { meta: reply.meta, body: [reply.body] };
}

/** What a paid read served, for payments to record and its receipt to name: board version, commitment, freshness and encoding (null for a view of no snapshot). */
export const deliveryOf = ({ meta }: { meta: BoardReadMeta }): Delivery | null =>
  meta.snapshot
    ? { snapshot: meta.snapshot, freshness: meta.freshness, encoding: meta.encoding, ...(meta.commitment && { commitment: meta.commitment }) }
    : null;

/**
 * Passes a view's bytes through with its ETag, encoding and the freshness headers. A body
 * changed per read (the tier block) goes without the view's ETag. Node's own response will
 * do: nothing here needs express's.
 */
export function sendBoardView(
  req: IncomingMessage,
  res: ServerResponse,
  reply: ServedView,
  extraHeaders: Record<string, string> = {},
  opts: { etag: boolean } = { etag: true },
): void {
  const { meta, body } = reply;
  if (opts.etag) res.setHeader("ETag", meta.etag);
  res.setHeader("Vary", "Accept-Encoding");
  for (const [name, value] of Object.entries(freshnessHeaders(meta.freshness))) res.setHeader(name, value);
  for (const [name, value] of Object.entries(extraHeaders)) res.setHeader(name, value);
  if (meta.status === 304) {
    res.setHeader("Cache-Control", "no-cache");
    res.statusCode = 304;
    res.end();
    return;
  }
  if (!res.hasHeader("Cache-Control")) res.setHeader("Cache-Control", "no-cache");
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  if (meta.encoding === "gzip") res.setHeader("Content-Encoding", "gzip");
  let length = 0;
  for (const part of body) length += part.length;
  res.setHeader("Content-Length", String(length));
  res.statusCode = 200;
  if (req.method === "HEAD") return void res.end();
  // Still one socket write: node corks the socket from a response's first write to its end.
  const last = body.length - 1;
  for (let i = 0; i < last; i++) res.write(body[i]);
  res.end(body[last]);
}

/** A free view: read it (conditionally) and pass it through. */
export async function serveBoardView(
  deps: BoardViewDeps,
  req: Request,
  res: Response,
  view: ViewName,
  params: Record<string, string>,
): Promise<void> {
  let reply;
  try {
    reply = await readBoardView(deps, req, view, params, { conditional: true });
  } catch (err) {
    return sendUpstreamError(res, err);
  }
  sendBoardView(req, res, reply);
}
