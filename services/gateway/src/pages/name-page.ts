import type { BookCode, EntryState, FullBoard, LaneEntry, NameRecord, NameSeries, PaymentsMode } from "@board/proto";
import { formatChange, formatDateTime, formatPrice, formatScore } from "../landing/format.js";
import { html, type Html } from "../http/html.js";
import { renderChart, renderChartLegend, type ChartLevel } from "./chart.js";
import { renderShell } from "./chart-page-shell.js";
import { sectorPath } from "../landing/sector-path.js";

/** The name's setup on the delayed board: its lane entry (the swing lane's first), with where it was found. */
export interface FreeSetup {
  book: BookCode;
  lane: "swing" | "risk_adjusted";
  entry: LaneEntry;
}

/** The setup the free board serves for `sym`: an entry of a book's lane, or null when it is in none. */
export function setupOf(board: FullBoard, sym: string): FreeSetup | null {
  for (const lane of ["swing", "risk_adjusted"] as const) {
    for (const book of board.book_order) {
      const entry = board.books[book]?.lanes[lane].find((e) => e.sym === sym);
      if (entry) return { book, lane, entry };
    }
  }
  return null;
}

export interface NamePageInput {
  board: FullBoard;
  record: NameRecord;
  series: NameSeries | null;
  states: ReadonlyMap<string, EntryState>;
  payments: PaymentsMode | null;
}

const LANE_WORDS = { swing: "swing lane", risk_adjusted: "risk-adjusted lane" } as const;

/** /board/<SYM>: one name on the delayed board. Pure: data in, HTML out. */
export function renderNamePage(input: NamePageInput): string {
  const { board, record: r, series, states } = input;
  const setup = setupOf(board, r.sym);
  const levels: ChartLevel[] = setup
    ? [
        { kind: "stop", value: setup.entry.stop },
        { kind: "target_2r", value: setup.entry.targets[0] },
        { kind: "target_3r", value: setup.entry.targets[1] },
      ]
    : [];
  const known = series ? series.dates.filter((d) => states.has(d)).length : 0;
  const body = html`<p class="asof" data-asof="${board.asof_daily}">${r.sector !== "Index" ? html`Sector: <a href="${sectorPath(r.sector)}" data-sector-link>${r.sector}</a>. ` : null}From the board of <time datetime="${board.asof_daily}">${board.asof_daily}</time>, one trading day delayed (computed <time datetime="${board.computed_at}">${formatDateTime(board.computed_at)}</time>): the free slice; the live read is <code>/api/board/name?sym=${r.sym}</code>.</p>
<section id="chart" aria-labelledby="chart-h">
<h2 id="chart-h">The last year of daily closes</h2>
${
  series
    ? html`${renderChart({
        id: "name-chart",
        title: `${r.sym} daily closes with SMA50, SMA200 and EMA21, ${series.dates[0] ?? ""} to ${series.dates.at(-1) ?? ""}`,
        desc: `${series.dates.length} sessions. Last close ${formatPrice(series.close.at(-1) ?? r.price)}.${setup ? ` Setup: entry window ${formatPrice(setup.entry.entry_window.low)} to ${formatPrice(setup.entry.entry_window.high)}, stop ${formatPrice(setup.entry.stop)}, targets ${formatPrice(setup.entry.targets[0])} (2R) and ${formatPrice(setup.entry.targets[1])} (3R).` : " No setup on this board."} The table below gives the same levels.`,
        series,
        states,
        entryWindow: setup?.entry.entry_window ?? null,
        levels,
      })}
${renderChartLegend({ bands: known > 0, knownSessions: known, sessions: series.dates.length, levels: setup !== null })}`
    : html`<p class="notice warming" data-chart="absent">No chart for this board: the daily series the scanner published with it is not available. The scores below stand.</p>`
}
</section>
<section id="levels" aria-labelledby="levels-h">
<h2 id="levels-h">Key levels</h2>
${renderLevels(r, series, setup)}
</section>
<section id="scores" aria-labelledby="scores-h">
<h2 id="scores-h">Scores</h2>
<dl class="scores">
<div><dt>Opportunity</dt><dd data-score="opp_score">${formatScore(r.opp_score)} <span class="muted">(p${r.opp_pct})</span></dd></div>
<div><dt>Entry state</dt><dd data-score="state">${r.state} <span class="muted">(${r.light})</span></dd></div>
<div><dt>Entry quality</dt><dd data-score="entry_q">${formatScore(r.entry_q)}</dd></div>
<div><dt>Hold strength</dt><dd data-score="hold_q">${formatScore(r.hold_q)} <span class="muted">(${r.hold_label})</span></dd></div>
<div><dt>Leader</dt><dd data-score="is_leader">${r.is_leader ? "yes" : "no"}</dd></div>
<div><dt>Price</dt><dd data-score="price">${formatPrice(r.price)} <span class="muted">(${formatChange(r.chg_pct)})</span></dd></div>
</dl>
</section>
<section id="books" aria-labelledby="books-h">
<h2 id="books-h">Its books' regime verdicts</h2>
<div class="table-wrap"><table class="verdicts">
<caption>${r.sym} belongs to ${r.bk.length === 1 ? "one book" : `${r.bk.length} books`}</caption>
<thead><tr><th scope="col">Book</th><th scope="col">Regime verdict</th><th scope="col">Stance</th><th scope="col">Line</th></tr></thead>
<tbody>${r.bk.map((code) => {
    const book = board.books[code];
    if (!book) return null;
    return html`<tr data-book="${code}"><th scope="row">${book.title} <span class="muted">(${code})</span></th><td data-verdict>${book.regime.verdict}</td><td>${book.regime.stance}</td><td>${book.regime.line}</td></tr>`;
  })}</tbody>
</table></div>
</section>`;
  return renderShell({
    title: `${r.sym}: ${r.name} on the Scored Market Board (delayed)`,
    description: `${r.sym} (${r.name}): opportunity, entry state, hold strength and a year of daily closes, from the board of ${board.asof_daily}, one trading day delayed.`,
    heading: html`${r.sym} <span class="muted">${r.name}</span>`,
    provider: board.provider,
    payments: input.payments,
    body,
  });
}

/** The chart's numbers as a table: the last session's close and averages, and the setup's levels. */
function renderLevels(r: NameRecord, series: NameSeries | null, setup: FreeSetup | null): Html {
  const last = series ? series.dates.length - 1 : -1;
  const row = (key: string, label: string, value: number | undefined) =>
    value === undefined ? null : html`<tr data-level-row="${key}"><th scope="row">${label}</th><td class="num" data-value="${value}">${formatPrice(value)}</td></tr>`;
  return html`<div class="table-wrap"><table class="key-levels">
<caption>${series ? `On ${series.dates[last] ?? ""}` : "On the board"}${setup ? `; setup from the ${LANE_WORDS[setup.lane]} of ${setup.book}` : "; no setup on this board"}</caption>
<thead><tr><th scope="col">Level</th><th scope="col" class="num">Price</th></tr></thead>
<tbody>
${row("close", "Close", series ? series.close[last] : r.price)}
${series ? html`${row("sma50", "SMA50", series.sma50[last])}${row("sma200", "SMA200", series.sma200[last])}${row("ema21", "EMA21", series.ema21[last])}` : null}
${setup ? html`${row("entry_low", "Entry window, low", setup.entry.entry_window.low)}${row("entry_high", "Entry window, high", setup.entry.entry_window.high)}${row("stop", "Stop", setup.entry.stop)}${row("target_2r", "Target 2R", setup.entry.targets[0])}${row("target_3r", "Target 3R", setup.entry.targets[1])}` : null}
</tbody>
</table></div>`;
}
