import type { EntryState, FullBoard, NameRecord, NameSeries, PaymentsMode, SectorLabel } from "@board/proto";
import { formatChange, formatDateTime, formatPrice, formatScore } from "../landing/format.js";
import { html } from "../http/html.js";
import { renderChart, renderChartLegend } from "./chart.js";
import { renderShell } from "./chart-page-shell.js";

/** The sector's ETF as the books' sector cards name it, or null when no book carries a card for it. */
export function sectorEtfOf(board: FullBoard, label: SectorLabel): string | null {
  for (const code of board.book_order) {
    const card = board.books[code]?.sector_cards.find((c) => c.label === label);
    if (card) return card.sym;
  }
  return null;
}

/** The sector's names on the board, ranked by opportunity (then symbol, as the free views rank). */
export function sectorMembers(board: FullBoard, label: SectorLabel): NameRecord[] {
  return board.names.filter((r) => r.sector === label).sort((a, b) => b.opp_score - a.opp_score || a.sym.localeCompare(b.sym));
}

export interface SectorPageInput {
  board: FullBoard;
  label: SectorLabel;
  etf: string | null;
  etfSeries: NameSeries | null;
  /** The ETF's entry state per session where the board's history knows it. */
  etfStates: ReadonlyMap<string, EntryState>;
  payments: PaymentsMode | null;
}

/** /board/sector/<label>: one sector on the delayed board. Pure: data in, HTML out. */
export function renderSectorPage(input: SectorPageInput): string {
  const { board, label, etf, etfSeries, etfStates } = input;
  const members = sectorMembers(board, label);
  const known = etfSeries ? etfSeries.dates.filter((d) => etfStates.has(d)).length : 0;
  const body = html`<p class="asof" data-asof="${board.asof_daily}">From the board of <time datetime="${board.asof_daily}">${board.asof_daily}</time>, one trading day delayed (computed <time datetime="${board.computed_at}">${formatDateTime(board.computed_at)}</time>): the free slice; the live read is <code>/api/board/sector?name=${label}</code>.</p>
<section id="etf" aria-labelledby="etf-h">
<h2 id="etf-h">${etf ? html`The sector ETF, <a href="/board/${etf}">${etf}</a>` : "The sector ETF"}</h2>
${
  etf && etfSeries
    ? html`${renderChart({
        id: "etf-chart",
        title: `${etf} daily closes with SMA50, SMA200 and EMA21, ${etfSeries.dates[0] ?? ""} to ${etfSeries.dates.at(-1) ?? ""}`,
        desc: `${etfSeries.dates.length} sessions of the ${label} sector ETF. Last close ${formatPrice(etfSeries.close.at(-1) ?? 0)}, SMA50 ${formatPrice(etfSeries.sma50.at(-1) ?? 0)}, SMA200 ${formatPrice(etfSeries.sma200.at(-1) ?? 0)}.`,
        series: etfSeries,
        states: etfStates,
      })}
${renderChartLegend({ bands: known > 0, knownSessions: known, sessions: etfSeries.dates.length, levels: false })}`
    : html`<p class="notice warming" data-chart="absent">${etf ? "No chart for this board: the ETF's daily series published with it is not available." : "No book carries a card for this sector's ETF."}</p>`
}
</section>
<section id="members" aria-labelledby="members-h">
<h2 id="members-h">Members ranked by opportunity</h2>
${
  members.length === 0
    ? html`<p class="muted">No names of this sector on that board.</p>`
    : html`<div class="table-wrap"><table class="members">
<caption>${members.length} ${members.length === 1 ? "name" : "names"} of ${label}, highest opportunity score first</caption>
<thead><tr><th scope="col" class="num">Rank</th><th scope="col">Symbol</th><th scope="col">Name</th><th scope="col" class="num">Price</th><th scope="col" class="num">Day</th><th scope="col" class="num">Opportunity</th><th scope="col">Entry state</th><th scope="col">Hold</th><th scope="col">Leader</th></tr></thead>
<tbody>${members.map(
        (r, i) =>
          html`<tr data-sym="${r.sym}" data-opp="${r.opp_score}"><td class="num">${i + 1}</td><th scope="row"><a href="/board/${r.sym}">${r.sym}</a></th><td>${r.name}</td><td class="num">${formatPrice(r.price)}</td><td class="num">${formatChange(r.chg_pct)}</td><td class="num">${formatScore(r.opp_score)} <span class="muted">(p${r.opp_pct})</span></td><td>${r.state} <span class="muted">(${r.light})</span></td><td>${r.hold_label}</td><td>${r.is_leader ? "yes" : "no"}</td></tr>`,
      )}</tbody>
</table></div>`
}
</section>`;
  return renderShell({
    title: `${label}: sector on the Scored Market Board (delayed)`,
    description: `The ${label} sector's names ranked by opportunity, with its sector ETF's year of daily closes, from the board of ${board.asof_daily}, one trading day delayed.`,
    heading: html`${label} <span class="muted">sector</span>`,
    provider: board.provider,
    payments: input.payments,
    body,
  });
}
