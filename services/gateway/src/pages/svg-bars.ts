import { formatChange } from "../landing/format.js";
import { html, type Html } from "../http/html.js";

/** One bar: a percentage, or null when there is nothing to measure (drawn as words, not as a zero). */
export interface Bar {
  /** Stable key, written to data-key (READY, D10, spx:model). */
  key: string;
  label: string;
  value: number | null;
  /** What the value rests on, said after it (observations, hit rate). */
  detail: string;
  /** The series the bar belongs to; none: coloured by its sign. */
  series?: "model" | "index";
}

export interface BarChart {
  /** Unique on the page: the ids of the chart's title and description derive from it. */
  id: string;
  title: string;
  desc: string;
  bars: readonly Bar[];
}

const WIDTH = 780;
const ROW = 26;
const TOP = 8;
const LABEL_W = 130;
const VALUE_W = 290;
const PLOT_W = WIDTH - LABEL_W - VALUE_W;

/**
 * Fills of at least 3:1 against white (WCAG 1.4.11); the words beside each bar say the same,
 * so colour is never the only carrier.
 */
const FILL = { up: "#1e7a34", down: "#b3261e", model: "#0b57d0", index: "#5f6368" } as const;

/** The horizontal extent of the chart's values, zero always inside it. */
export function domainOf(values: readonly number[]): { lo: number; hi: number } {
  const lo = Math.min(0, ...values);
  const hi = Math.max(0, ...values);
  return lo === hi ? { lo: 0, hi: 1 } : { lo, hi };
}

/** Where value v sits on the plot, in SVG units. */
export function xOf(v: number, d: { lo: number; hi: number }): number {
  return LABEL_W + ((v - d.lo) / (d.hi - d.lo)) * PLOT_W;
}

const round = (n: number) => Math.round(n * 10) / 10;

function fillOf(bar: Bar, value: number): string {
  if (bar.series) return FILL[bar.series];
  return value >= 0 ? FILL.up : FILL.down;
}

/**
 * A horizontal bar chart as inline SVG, readable without script or style sheet: each bar
 * carries its label, its value in words and a <title>; the chart a <title> and <desc>. The
 * numbers ride in data-value exactly as the view gave them.
 */
export function renderBarChart(chart: BarChart): Html {
  const values = chart.bars.flatMap((b) => (b.value === null ? [] : [b.value]));
  const d = domainOf(values);
  const zero = round(xOf(0, d));
  const height = TOP * 2 + ROW * chart.bars.length;
  const rows = chart.bars.map((bar, i) => {
    const y = TOP + i * ROW;
    const mid = y + ROW / 2 + 4;
    const words = bar.value === null ? "no observations" : formatChange(bar.value);
    const said = `${bar.label}: ${words}${bar.detail ? ` (${bar.detail})` : ""}`;
    let rect: Html | null = null;
    if (bar.value !== null) {
      const end = round(xOf(bar.value, d));
      const x = Math.min(zero, end);
      rect = html`<rect x="${x}" y="${y + 4}" width="${round(Math.abs(end - zero))}" height="${ROW - 8}" fill="${fillOf(bar, bar.value)}"/>`;
    }
    return html`<g class="bar" data-key="${bar.key}" data-value="${bar.value === null ? "" : String(bar.value)}"${bar.series ? html` data-series="${bar.series}"` : null}><title>${said}</title><text x="${LABEL_W - 8}" y="${mid}" text-anchor="end">${bar.label}</text>${rect}<text x="${WIDTH - VALUE_W + 8}" y="${mid}">${words}${bar.detail ? html`<tspan fill="#4a5060"> · ${bar.detail}</tspan>` : null}</text></g>`;
  });
  return html`<svg class="bars" role="img" aria-labelledby="${chart.id}-t ${chart.id}-d" viewBox="0 0 ${WIDTH} ${height}" width="100%" preserveAspectRatio="xMinYMin meet" font-size="13" font-family="system-ui,sans-serif" fill="#16181d" data-chart="${chart.id}">
<title id="${chart.id}-t">${chart.title}</title>
<desc id="${chart.id}-d">${chart.desc} ${chart.bars.map((b) => `${b.label}: ${b.value === null ? "no observations" : formatChange(b.value)}${b.detail ? ` (${b.detail})` : ""}.`).join(" ")}</desc>
<line x1="${zero}" y1="${TOP - 4}" x2="${zero}" y2="${height - TOP + 4}" stroke="#16181d" stroke-width="1"/>
${rows}
</svg>`;
}
