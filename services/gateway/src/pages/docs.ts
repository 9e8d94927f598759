import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { PAID_ROUTES } from "@board/proto";
import { PRICE_RANGE } from "../discovery/terms.js";
import { html, trusted } from "../http/html.js";
import { ASSET_CACHE_CONTROL, type DocsAssets } from "./docs-assets.js";
import { PAGE_HEADERS, prepare, sendPrepared, type Prepared } from "./prepared.js";

/**
 * The intro's own rules; Swagger UI's sheet is a served file. The .swagger-ui rules darken the
 * version badges, the description's link, the method badges and the Authorize button, whose
 * stock colours fail WCAG contrast (white on light blue, green on white); the examples grow to
 * their length instead of scrolling in a box a keyboard cannot reach.
 */
const STYLE = `
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#16181d;background:#fff}
.intro{max-width:72rem;margin:0 auto;padding:1.5rem 1rem .5rem}
.intro h1{font-size:1.9rem;margin:0 0 .5rem}
.intro h2{font-size:1.25rem;margin:1.2rem 0 .4rem}
.intro a{color:#0b57d0}
.intro code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em;background:#f6f7f9;padding:0 .2em;border-radius:3px}
.intro ol{padding-left:1.4rem}
.intro .pay{border:1px solid #d5d9e0;border-radius:8px;padding:.2rem 1rem .6rem;background:#f6f7f9}
.noscript{max-width:72rem;margin:1rem auto;padding:0 1rem}
.swagger-ui .info .title small{background:#4a5060}
.swagger-ui .info .title small.version-stamp{background:#1e7a34}
.swagger-ui .info a,.swagger-ui .info .url{color:#0b57d0}
.swagger-ui .opblock.opblock-get .opblock-summary-method{background:#0b57d0}
.swagger-ui .opblock.opblock-post .opblock-summary-method{background:#1e7a34;color:#fff}
.swagger-ui .opblock.opblock-delete .opblock-summary-method{background:#b3261e}
.swagger-ui .opblock.opblock-head .opblock-summary-method{background:#6a1fb5}
.swagger-ui .btn.authorize{border-color:#1e7a34;color:#1e7a34}
.swagger-ui .btn.authorize svg{color:#1e7a34}
.swagger-ui .highlight-code>.microlight{max-height:none;overflow-y:visible}
`.trim();

const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE, "utf8").digest("base64")}'`;

/**
 * As strict as the landing page's, with what Swagger UI needs and no more: its script and
 * sheet from this origin ('self', never 'unsafe-inline' or 'unsafe-eval' for scripts),
 * /openapi.json and "try it out" to this origin (connect-src), and the data: images its sheet
 * inlines (icons). style-src 'self' plus our intro's hash: Swagger UI's React sets element
 * styles through the DOM (not blocked by CSP), so no 'unsafe-inline' is needed for styles.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' ${STYLE_HASH}`,
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The page changes only with a deploy (a new bundle is a new URL): a few minutes of caching, then revalidate. */
const PAGE_CACHE_CONTROL = "public, max-age=300";

/** The example paid route named in the intro: the cheapest, so the 402 shown costs least to answer. */
const EXAMPLE = PAID_ROUTES.find((r) => r.path === "/api/board/regime") ?? PAID_ROUTES[0]!;

/** The reference page: our intro on paying, then the reference Swagger UI draws from /openapi.json. */
export function renderDocsPage(assets: Pick<DocsAssets, "bundle" | "css" | "init">): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference: Scored Market Board</title>
<meta name="description" content="Interactive reference of the Scored Market Board's HTTP API, drawn from its OpenAPI description, with how a paid read's 402 is answered.">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.css.path}">
<style>${trusted(STYLE)}</style>
<script src="${assets.bundle.path}" defer></script>
<script src="${assets.init.path}" defer></script>
</head>
<body>
<header class="intro">
<h1>API reference</h1>
<p>Every route of this service, drawn from its own <a href="/openapi.json"><code>/openapi.json</code></a>. Free reads answer at once; the paid ones are sold per read in USDC (${PRICE_RANGE}). A plain-text guide for agents and people is <a href="/llms.txt"><code>/llms.txt</code></a>; the board itself is on the <a href="/">landing page</a>.</p>
<section class="pay" aria-labelledby="pay-h">
<h2 id="pay-h">Paid routes answer 402 until paid</h2>
<ol>
<li>Request a paid route, say <code>GET ${EXAMPLE.path}</code>, without payment or credential. The answer is <strong>402 Payment Required</strong>: its <code>PAYMENT-REQUIRED</code> header carries the offers as base64 JSON (x402 v2: one <code>accepts</code> entry per rail, each at the route's price), and the JSON body repeats them with the reason in <code>error</code>.</li>
<li><strong>x402</strong>: sign a payment for one <code>accepts</code> entry with an x402 client and repeat the request with it in <code>PAYMENT-SIGNATURE</code> (<code>X-PAYMENT</code> for v1 clients). The read comes back with its signed receipt in <code>PAYMENT-RESPONSE</code>; you are charged only for a read that succeeded.</li>
<li><strong>MPP</strong>: the same 402 carries a <code>WWW-Authenticate: Payment</code> challenge; answer it in <code>Authorization: Payment</code> and the receipt comes back in <code>Payment-Receipt</code>.</li>
</ol>
<p>A free key (<code>X-Board-Key</code>), a wallet sign-in or a license key reads without paying each time, within its tier. <a href="/api"><code>/api</code></a> lists every paid route's offers in one 402; <a href="/llms.txt"><code>/llms.txt</code></a> has the steps in full, retries and refusals included.</p>
</section>
</header>
<noscript><p class="noscript">The interactive reference needs JavaScript. The same description is the JSON of <a href="/openapi.json"><code>/openapi.json</code></a>.</p></noscript>
<main id="swagger-ui" aria-label="API operations"></main>
</body>
</html>
`.markup;
}

/** Serves /docs and its assets from bytes made once. */
export class DocsPages {
  private readonly page: Prepared;

  constructor(private readonly assets: DocsAssets) {
    this.page = prepare(renderDocsPage(assets));
  }

  servePage(req: IncomingMessage, res: ServerResponse): void {
    sendPrepared(req, res, this.page, { ...PAGE_HEADERS, "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": DOCS_CSP, "Cache-Control": PAGE_CACHE_CONTROL });
  }

  /** One asset by its hashed path; false when there is none (the caller answers 404). */
  serveAsset(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const a = this.assets.byPath.get(path);
    if (!a) return false;
    sendPrepared(req, res, a.body, { "Content-Type": a.contentType, "Cache-Control": ASSET_CACHE_CONTROL, "X-Content-Type-Options": "nosniff", "Cross-Origin-Resource-Policy": "same-origin" });
    return true;
  }
}
