import { ROUTES } from "@board/proto";
import type { Request, Response } from "express";
import { apiCatalogLink } from "../discovery/api-catalog.js";
import { preferredEncoding } from "../http/encoding.js";
import type { ReadDeps } from "../reads/read.js";
import { LandingPages, type RenderedPage } from "./cache.js";
import { readPaymentsMode } from "./payments-mode.js";
import { STYLE_HASH } from "./style.js";

/** Nothing loads but the page's own hashed style sheet: no script, font, frame or form target. */
export const LANDING_CSP = [
  "default-src 'none'",
  `style-src ${STYLE_HASH}`,
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The drawn page may be kept a minute: the slice it shows changes with a publish, not per read. */
const CACHE_CONTROL = "public, max-age=60";
const REVALIDATE_MS = 1000;
const RETRY_SECONDS = 5;

const pagesOf = new WeakMap<ReadDeps, LandingPages>();

function pagesFor(deps: ReadDeps): LandingPages {
  let pages = pagesOf.get(deps);
  if (!pages) {
    pages = new LandingPages(deps, {
      routes: ROUTES,
      revalidateMs: REVALIDATE_MS,
      now: () => performance.now(),
      warn: (err, message) => deps.log.warn({ err }, message),
      paymentsMode: () => readPaymentsMode(deps),
    });
    pagesOf.set(deps, pages);
  }
  return pages;
}

/**
 * GET and HEAD /: the landing page for people. While the board has no free slice to draw
 * (warming up, or unreachable with no earlier page) the page still renders, prices and
 * documents included, with 503 and Retry-After: the slice is temporarily unavailable,
 * and a crawler or monitor should neither keep nor index that version.
 */
export async function serveLandingPage(deps: ReadDeps, req: Request, res: Response): Promise<void> {
  // RFC 9727 5.2: the API's home points at its catalog.
  res.setHeader("Link", apiCatalogLink(deps.publicBaseUrl));
  sendPage(req, res, await pagesFor(deps).current());
}

function sendPage(req: Request, res: Response, page: RenderedPage): void {
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Content-Security-Policy", LANDING_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Vary", "Accept-Encoding");
  if (page.etag) {
    res.setHeader("ETag", page.etag);
    res.setHeader("Cache-Control", CACHE_CONTROL);
    if (matchesEtag(req.headers["if-none-match"], page.etag)) {
      res.status(304).end();
      return;
    }
  } else {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Retry-After", String(RETRY_SECONDS));
  }
  const gzip = preferredEncoding(req.headers["accept-encoding"]) === "gzip";
  const body = gzip ? page.gzip : page.identity;
  if (gzip) res.setHeader("Content-Encoding", "gzip");
  res.setHeader("Content-Length", String(body.length));
  res.status(page.status).end(req.method === "HEAD" ? undefined : body);
}

/** Weak comparison (RFC 9110 13.1.2): W/ prefixes do not matter, * matches. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => t.trim() === "*" || bare(t) === bare(etag));
}
