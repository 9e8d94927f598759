import type { Route } from "@board/proto";
import { html, type Html } from "../http/html.js";
import { formatUsdc } from "./usdc.js";

/** Every route sold per read, from the route catalogue, with its exact price. */
export function renderPriceTable(routes: readonly Route[]): Html {
  const paid = routes.filter((r): r is Route & { price: bigint } => r.kind === "paid" && r.price !== null);
  return html`<div class="table-wrap"><table class="prices">
<caption>Price per read in USDC (6 decimals); base units are the amounts a 402 asks for</caption>
<thead><tr><th scope="col">Route</th><th scope="col">Query</th><th scope="col">Returns</th><th scope="col" class="num">USDC</th><th scope="col" class="num">Base units</th><th scope="col">Free key and wallet</th></tr></thead>
<tbody>${paid.map(
    (r) =>
      html`<tr data-path="${r.path}"><th scope="row"><code>${r.path}</code></th><td>${renderQuery(r)}</td><td>${r.summary}</td><td class="num" data-usdc>${formatUsdc(r.price)}</td><td class="num">${r.price.toString()}</td><td>${r.tiers.includes("free_key") ? "included, 25 reads a day" : "no"}</td></tr>`,
  )}</tbody>
</table></div>`;
}

function renderQuery(r: Route): Html {
  const params = Object.keys(r.query.shape).filter((p) => p !== r.freeVariant?.param);
  const free = r.freeVariant ? html`<code>${r.freeVariant.param}=${r.freeVariant.value}</code>: free, one trading day old, top 3 names per book` : null;
  if (params.length === 0 && !free) return html`<span class="muted">none</span>`;
  return html`${params.map((p, i) => html`${i > 0 ? ", " : ""}<code>${p}</code>`)}${free}`;
}
