import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { promisify } from "node:util";
import { gzip, gzipSync } from "node:zlib";
import { preferredEncoding } from "../http/encoding.js";

const gzipAsync = promisify(gzip);

/**
 * A body made once and sent many times: both encodings and its ETag. A page is sent from
 * here, never rendered per request, so a view costs one lookup and one socket write.
 */
export interface Prepared {
  etag: string;
  identity: Buffer;
  /** Null while a large asset's gzip is still being made off the event loop: identity is sent meanwhile. */
  gzip: Buffer | null;
}

/** The ETag of a body: its sha256, cut to 32 hex digits; weak, as the gzip and identity bytes share it. */
export function etagOf(body: Buffer): string {
  return `W/"${createHash("sha256").update(body).digest("hex").slice(0, 32)}"`;
}

/** A small body (a page): gzipped at once. */
export function prepare(body: Buffer | string): Prepared {
  const identity = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  return { etag: etagOf(identity), identity, gzip: gzipSync(identity) };
}

/** A large body (the reference's bundle): its gzip made on the thread pool, filled in when done. */
export function prepareLarge(body: Buffer, warn: (err: unknown) => void): Prepared {
  const p: Prepared = { etag: etagOf(body), identity: body, gzip: null };
  gzipAsync(body).then((z) => (p.gzip = z), warn);
  return p;
}

/** Weak comparison (RFC 9110 13.1.2): W/ prefixes do not matter, * matches. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => t.trim() === "*" || bare(t) === bare(etag));
}

/** Common headers of every page of ours: no sniffing, no framing, no referrer. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
};

/** Sends a prepared body with its ETag (304 on a match), in gzip when the client takes it; HEAD sends the headers alone. */
export function sendPrepared(req: IncomingMessage, res: ServerResponse, body: Prepared, headers: Readonly<Record<string, string>>, status = 200): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader("Vary", "Accept-Encoding");
  res.setHeader("ETag", body.etag);
  if (status === 200 && matchesEtag(req.headers["if-none-match"], body.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const zipped = body.gzip !== null && preferredEncoding(req.headers["accept-encoding"]) === "gzip";
  const bytes = zipped ? body.gzip! : body.identity;
  if (zipped) res.setHeader("Content-Encoding", "gzip");
  res.setHeader("Content-Length", String(bytes.length));
  res.statusCode = status;
  res.end(req.method === "HEAD" ? undefined : bytes);
}
