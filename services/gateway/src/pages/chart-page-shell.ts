import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { DISCLAIMER, type PaymentsMode, type ProviderInfo } from "@board/proto";
import type { Request, Response } from "express";
import { preferredEncoding } from "../http/encoding.js";
import { html, trusted, type Html } from "../http/html.js";
import { renderProvider } from "../landing/provider.js";
import { STYLE } from "../landing/style.js";
import { DEVELOPMENT_BANNER, PAGE_FOOTER } from "../landing/page-parts.js";

/** The name and sector pages' own rules, on top of the landing page's sheet. */
export const CHART_STYLE = `
.chart{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
.chart-legend .key{display:inline-block;width:1.1em;height:.8em;border:1px solid rgba(0,0,0,.3);vertical-align:middle}
.key.state-READY{background:#b9e4c4}.key.state-SETUP{background:#cfe0fb}.key.state-WAIT{background:#ececec}.key.state-CHASE{background:#fbe3b0}.key.state-FALLING{background:#f6cdc8}
.key[data-fill=entry]{background:#dbe6f9}
.legend-note{font-size:.85rem}
dl.scores{display:grid;grid-template-columns:repeat(auto-fill,minmax(10rem,1fr));gap:.5rem;margin:.5rem 0}
dl.scores div{border:1px solid var(--line);border-radius:6px;padding:.4rem .6rem}
dl.scores dt{font-size:.85rem;color:var(--muted)}
dl.scores dd{margin:0;font-weight:700;font-variant-numeric:tabular-nums}
`.trim();

const hashOf = (css: string) => `'sha256-${createHash("sha256").update(css, "utf8").digest("base64")}'`;

/** As the landing page's: nothing loads but the two hashed style sheets; no script at all. */
export const CHART_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${hashOf(STYLE)} ${hashOf(CHART_STYLE)}`,
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The landing page's development-payments banner, in the same words. */

export interface ShellInput {
  title: string;
  description: string;
  heading: Html;
  provider: ProviderInfo;
  payments: PaymentsMode | null;
  body: Html;
}

export function renderShell(input: ShellInput): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${input.title}</title>
<meta name="description" content="${input.description}">
<link rel="icon" href="data:,">
<style>${trusted(STYLE)}</style>
<style>${trusted(CHART_STYLE)}</style>
</head>
<body>
${input.payments === "development" ? DEVELOPMENT_BANNER : null}
<header>
<p><a href="/">Scored Market Board</a></p>
<h1>${input.heading}</h1>
<p class="disclaimer"><strong>Impersonal research, not advice.</strong> ${DISCLAIMER}</p>
${renderProvider(input.provider)}
</header>
<main>
${input.body}
</main>
${PAGE_FOOTER}
</body>
</html>
`.markup;
}

/** A page as sent: both encodings made once, and its ETag. */
export interface ChartPage {
  etag: string;
  identity: Buffer;
  gzip: Buffer;
  /** False when drawn without its chart (the series not there yet): kept only briefly, then made again. */
  complete: boolean;
}

export function chartPage(markup: string, complete = true): ChartPage {
  const identity = Buffer.from(markup, "utf8");
  return { etag: `W/"${createHash("sha256").update(identity).digest("hex").slice(0, 32)}"`, identity, gzip: gzipSync(identity), complete };
}

/** How long a page drawn without its chart is served before it is made again. */
const INCOMPLETE_MS = 5000;

/**
 * Pages made for one delayed board (its ETag and payments' mode), by key: a new board or mode
 * drops them all, so each page is rendered once per board and then served from memory.
 */
export class ChartPageCache {
  private board = "";
  private readonly pages = new Map<string, Promise<ChartPage | null>>();

  get(board: string, key: string, make: () => Promise<ChartPage | null>): Promise<ChartPage | null> {
    if (board !== this.board) {
      this.board = board;
      this.pages.clear();
    }
    let page = this.pages.get(key);
    if (!page) {
      page = make();
      this.pages.set(key, page);
      // A failed render is not kept: the next request tries again.
      page.then(
        (p) => {
          if (p && !p.complete) setTimeout(() => this.pages.get(key) === page && this.pages.delete(key), INCOMPLETE_MS).unref();
        },
        () => this.pages.delete(key),
      );
    }
    return page;
  }
}

export function sendChartPage(req: Request, res: Response, page: ChartPage): void {
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Content-Security-Policy", CHART_PAGE_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Vary", "Accept-Encoding");
  res.setHeader("ETag", page.etag);
  // The page changes with a publish, not per read.
  res.setHeader("Cache-Control", "public, max-age=60");
  const inm = req.headers["if-none-match"];
  if (inm && inm.split(",").some((t) => t.trim().replace(/^W\//, "") === page.etag.replace(/^W\//, ""))) {
    res.status(304).end();
    return;
  }
  const gzip = preferredEncoding(req.headers["accept-encoding"]) === "gzip";
  const body = gzip ? page.gzip : page.identity;
  if (gzip) res.setHeader("Content-Encoding", "gzip");
  res.setHeader("Content-Length", String(body.length));
  res.status(200).end(req.method === "HEAD" ? undefined : body);
}
