import type { BookCode, FreeBoard, FullBoard, NameRecord } from "@board/proto";
import { formatChange, formatPrice, formatScore } from "./format.js";
import { html, type Html } from "../http/html.js";

/** Per book of the free view: its regime verdict (verdict, stance, line) and its top names. */
export function renderBooks(free: FreeBoard, delayed: FullBoard): Html {
  return html`<div class="books">${free.book_order.map((code) => renderBook(code, free, delayed))}</div>`;
}

function renderBook(code: BookCode, free: FreeBoard, delayed: FullBoard): Html | null {
  const book = free.books[code];
  if (!book) return null;
  const title = delayed.books[code]?.title ?? code;
  return html`<section class="book" data-book="${code}" aria-labelledby="book-${code}">
<h3 id="book-${code}">${title} <span class="muted">(${code})</span></h3>
<p class="verdict stance-${book.stance}">Regime verdict: <strong data-verdict>${book.verdict}</strong> · <span class="stance">${book.stance}</span></p>
<p class="regime-line">${book.line}</p>
${book.top.length > 0 ? renderTop(code, book.top) : html`<p class="muted">No names in this book on that day.</p>`}
</section>`;
}

function renderTop(code: BookCode, top: readonly NameRecord[]): Html {
  return html`<div class="table-wrap"><table class="top-names" data-book="${code}">
<caption>Top ${top.length} by opportunity score</caption>
<thead><tr><th scope="col">Symbol</th><th scope="col">Name</th><th scope="col">Sector</th><th scope="col" class="num">Price</th><th scope="col" class="num">Day</th><th scope="col" class="num">Opportunity</th><th scope="col">Entry state</th><th scope="col">Hold</th></tr></thead>
<tbody>${top.map(
    (r) =>
      html`<tr><th scope="row"><a href="/board/${r.sym}">${r.sym}</a></th><td>${r.name}</td><td>${r.sector}</td><td class="num">${formatPrice(r.price)}</td><td class="num">${formatChange(r.chg_pct)}</td><td class="num">${formatScore(r.opp_score)} <span class="muted">(p${r.opp_pct})</span></td><td>${r.state} <span class="muted">(${r.light})</span></td><td>${r.hold_label}</td></tr>`,
  )}</tbody>
</table></div>`;
}
