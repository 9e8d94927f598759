import { DISCLAIMER, type FreeBoard, type FullBoard, type PaymentsMode, type Route } from "@board/proto";
import { renderAccess } from "./access.js";
import { renderBooks } from "./books.js";
import { renderConnect } from "./connect.js";
import { formatDateTime } from "./format.js";
import { heatCells, renderHeatMap } from "./heat-map.js";
import { html, trusted, type Html } from "../http/html.js";
import { renderPriceTable } from "./prices.js";
import { renderProvider } from "./provider.js";
import { STYLE } from "./style.js";
import { DEVELOPMENT_BANNER, PAGE_FOOTER } from "./page-parts.js";

/** What the board gave the page: the free slice drawn, or why there is none. */
export type BoardSlice =
  | { kind: "drawn"; free: FreeBoard; delayed: FullBoard }
  /** No snapshot yet, or no board of an earlier trading day (snapshot_unavailable). */
  | { kind: "warming_up" }
  /** The board did not answer (no responder, timeout, failure). */
  | { kind: "unreachable" };

export interface LandingInput {
  slice: BoardSlice;
  routes: readonly Route[];
  /** Payments' mode; `development` puts the no-real-money banner at the top. Unknown: no banner. */
  payments?: PaymentsMode | null;
}

/** The documents a visitor or an agent reads next, in this order. */
const DOCUMENTS = [
  "/llms.txt",
  "/openapi.json",
  "/.well-known/api-catalog",
  "/.well-known/mcp/server-card.json",
  "/mcp",
  "/api",
  "/api/board/status",
  "/api/board/symbols",
  "/api/board/free",
] as const;

/** Loud, so nobody takes the development chains for real payments. */

/** Free reads that need their one query parameter to be read at all. */
const FREE_READ_AS: Readonly<Record<string, string>> = { "/api/board/asof": "/api/board/asof?sample=1" };

/** The landing page: pure, data in, HTML out; every data value goes through the escaping template. */
export function renderLandingPage(input: LandingInput): string {
  const { slice, routes, payments } = input;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Scored Market Board: per-read research on US stocks, ETFs and crypto</title>
<meta name="description" content="A per-read paid research board: about 565 US stocks, ETFs and two crypto assets scored every ~5 minutes of market hours, in four books. Free delayed slice, prices in USDC, x402, MPP and free keys.">
<link rel="icon" href="data:,">
<style>${trusted(STYLE)}</style>
</head>
<body>
${payments === "development" ? DEVELOPMENT_BANNER : null}
<header>
<h1>Scored Market Board</h1>
<p class="lede">A per-read paid research board. About 565 names (US large-cap stocks of the S&amp;P 500 and the Nasdaq-100, macro and sector ETFs, and two crypto assets, BTC-USD and ETH-USD) are scored for opportunity, entry state and hold strength about every 5 minutes of US market hours, in four books: <code>spx</code>, <code>qqq</code>, <code>macro</code> and <code>crypto</code>, each with a regime verdict. Every read is JSON, sold per read in USDC; small slices are free.</p>
<p class="disclaimer"><strong>Impersonal research, not advice.</strong> ${DISCLAIMER}</p>
<nav aria-label="On this page"><a href="#slice">Free slice</a> · <a href="#sectors">Sector heat map</a> · <a href="#prices">Prices</a> · <a href="#pay">How to pay</a> · <a href="#connect">Agents and generated clients</a> · <a href="#documents">Documents</a></nav>
<p class="more">Also: the <a href="/docs">API reference</a> and the <a href="/audit">signal audit</a>, drawn.</p>
</header>
<main>
${renderSlice(slice)}
<section id="prices" aria-labelledby="prices-h">
<h2 id="prices-h">Prices</h2>
${renderPriceTable(routes)}
<p>Free for everyone, no payment: ${routes
    .filter((r) => r.kind === "free")
    .map((r, i) => html`${i > 0 ? ", " : ""}<code>${FREE_READ_AS[r.path] ?? r.path}</code>`)}, <code>/api/board/agent?preview=1</code>, and the delayed full board over MCP at <code>/mcp</code>.</p>
</section>
<section id="pay" aria-labelledby="pay-h">
<h2 id="pay-h">How to pay or get in</h2>
${renderAccess(routes)}
</section>
<section id="connect" aria-labelledby="connect-h">
<h2 id="connect-h">Agents and generated clients</h2>
${renderConnect()}
</section>
<section id="documents" aria-labelledby="documents-h">
<h2 id="documents-h">Documents</h2>
<ul class="docs">${DOCUMENTS.map((path) => html`<li><a href="${path}"><code>${path}</code></a>: ${routes.find((r) => r.path === path)?.summary ?? ""}${path === "/mcp" ? " (POST with an MCP client)" : ""}</li>`)}</ul>
</section>
</main>
${PAGE_FOOTER}
</body>
</html>
`.markup;
}

function renderSlice(slice: BoardSlice): Html {
  if (slice.kind !== "drawn") {
    const why =
      slice.kind === "warming_up"
        ? html`<strong>The board is warming up.</strong> No board of an earlier trading day is published yet, so there is no free slice to draw.`
        : html`<strong>The board is not answering right now.</strong> The free slice cannot be drawn at the moment.`;
    return html`<section id="slice" aria-labelledby="slice-h">
<h2 id="slice-h">Today's free slice</h2>
<p class="notice warming" role="status" data-board="${slice.kind}">${why} Prices, payment and documents below stand; retry in a few seconds, or watch <a href="/api/board/status"><code>/api/board/status</code></a>.</p>
</section>
<section id="sectors" aria-labelledby="sectors-h">
<h2 id="sectors-h">Sector heat map</h2>
<p class="muted">Appears with the free slice.</p>
</section>`;
  }
  const { free, delayed } = slice;
  return html`<section id="slice" aria-labelledby="slice-h">
<h2 id="slice-h">Today's free slice</h2>
<p class="asof" data-asof="${free.asof_daily}">From the board of <time datetime="${free.asof_daily}">${free.asof_daily}</time>, one trading day delayed (computed <time datetime="${free.computed_at}">${formatDateTime(free.computed_at)}</time>; ${delayed.names.length} names).</p>
${renderProvider(delayed.provider)}
<p>Each book's regime verdict and its top 3 names by opportunity score: the JSON of <a href="/api/board/free"><code>/api/board/free</code></a>. The live board is sold per read (prices below).</p>
${renderBooks(free, delayed)}
</section>
<section id="sectors" aria-labelledby="sectors-h">
<h2 id="sectors-h">Sector heat map</h2>
<p>Each sector scored 0–100 (its sector ETF's score) on the board of ${delayed.asof_daily}, one trading day delayed. Colour and word both give the band; “green in” names the books whose regime verdict opens the sector.</p>
${renderHeatMap(heatCells(delayed))}
</section>`;
}
