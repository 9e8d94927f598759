import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { Request, Response } from "express";
import { preferredEncoding } from "../http/encoding.js";

/** A discovery document, rendered once: its bytes, their ETag and how it is served. */
export interface Document {
  readonly body: Buffer;
  /** The same bytes gzipped, once, for clients that accept it: another representation, with its own ETag. */
  readonly gzip: Buffer;
  readonly etag: string;
  readonly gzipEtag: string;
  readonly contentType: string;
  readonly cacheControl: string;
  readonly headers: Readonly<Record<string, string>>;
}

export function document(body: string, contentType: string, opts: { cacheControl?: string; headers?: Record<string, string> } = {}): Document {
  const bytes = Buffer.from(body, "utf8");
  // The type is hashed too: one body served as two media types is two representations.
  const tag = createHash("sha256").update(contentType).update("\n").update(bytes).digest("base64url").slice(0, 32);
  return {
    body: bytes,
    gzip: gzipSync(bytes),
    etag: `"${tag}"`,
    gzipEtag: `"${tag}-gzip"`,
    contentType,
    cacheControl: opts.cacheControl ?? "public, max-age=300",
    headers: opts.headers ?? {},
  };
}

/** RFC 9110 13.1.2: If-None-Match is a list of entity tags (weak comparison), or "*". */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/**
 * Sends a document's bytes: the same for everyone, so any cache may keep them (browsers on
 * other origins read them as every answer: http/cors.ts). If-None-Match answers 304; HEAD
 * answers the headers only.
 */
export function sendDocument(req: Request, res: Response, doc: Document): void {
  const gzip = preferredEncoding(req.headers["accept-encoding"]) === "gzip";
  const etag = gzip ? doc.gzipEtag : doc.etag;
  res.setHeader("ETag", etag);
  res.setHeader("Cache-Control", doc.cacheControl);
  res.setHeader("Vary", doc.headers["Vary"] ? `${doc.headers["Vary"]}, Accept-Encoding` : "Accept-Encoding");
  for (const [name, value] of Object.entries(doc.headers)) if (name !== "Vary") res.setHeader(name, value);
  if (matches(req.headers["if-none-match"], etag)) {
    res.status(304).end();
    return;
  }
  const body = gzip ? doc.gzip : doc.body;
  res.setHeader("Content-Type", doc.contentType);
  if (gzip) res.setHeader("Content-Encoding", "gzip");
  res.setHeader("Content-Length", String(body.length));
  res.status(200).end(req.method === "HEAD" ? undefined : body);
}
