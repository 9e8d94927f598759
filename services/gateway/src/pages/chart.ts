// The name and sector pages' chart: server-rendered SVG, no chart library. Nothing to load
// (the page fetches nothing but itself), the strict CSP admits no script, and it reads the same
// with JavaScript off; the data attributes let a test check each drawn number against the board's.

import type { EntryState, NameSeries } from "@board/proto";
import { html, type Html } from "../http/html.js";

export const CHART_WIDTH = 760;
export const CHART_HEIGHT = 340;
const PAD = { left: 8, right: 64, top: 12, bottom: 24 };

/** A level of the name's setup, drawn across the chart. */
export interface ChartLevel {
  kind: "stop" | "target_2r" | "target_3r";
  value: number;
}

export interface ChartInput {
  /** Used in the SVG's ids, so two charts on one page do not collide. */
  id: string;
  title: string;
  desc: string;
  series: NameSeries;
  /** The entry state of a session where the board's history knows it; a session absent here is drawn without a band. */
  states?: ReadonlyMap<string, EntryState>;
  entryWindow?: { low: number; high: number } | null;
  levels?: readonly ChartLevel[];
}

/** Band fills per entry state; light, so the lines on top keep their contrast. */
export const STATE_FILL: Readonly<Record<EntryState, string>> = {
  READY: "#b9e4c4",
  SETUP: "#cfe0fb",
  WAIT: "#ececec",
  CHASE: "#fbe3b0",
  FALLING: "#f6cdc8",
};

const LINE = { close: "#16181d", sma50: "#0b57d0", sma200: "#b3261e", ema21: "#7a4f00" } as const;
const LEVEL = { stop: "#b3261e", target_2r: "#1e6b34", target_3r: "#1e6b34" } as const;
const LEVEL_WORDS = { stop: "Stop", target_2r: "2R", target_3r: "3R" } as const;

/** Coordinates to two decimals: the drawing needs no more, and the page stays small. */
const c2 = (n: number) => Math.round(n * 100) / 100;

export function renderChart(input: ChartInput): Html {
  const { series, states, entryWindow, levels = [] } = input;
  const n = series.dates.length;
  const values = [...series.close, ...series.sma50, ...series.sma200, ...series.ema21, ...levels.map((l) => l.value)];
  if (entryWindow) values.push(entryWindow.low, entryWindow.high);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo || Math.abs(hi) || 1;
  const yMin = lo - span * 0.04;
  const yMax = hi + span * 0.04;
  const plotW = CHART_WIDTH - PAD.left - PAD.right;
  const plotH = CHART_HEIGHT - PAD.top - PAD.bottom;
  const step = n > 1 ? plotW / (n - 1) : 0;
  const x = (i: number) => c2(PAD.left + (n > 1 ? i * step : plotW / 2));
  const y = (v: number) => c2(PAD.top + ((yMax - v) / (yMax - yMin)) * plotH);
  const line = (key: keyof typeof LINE, col: readonly number[], dash = "") =>
    html`<polyline class="line-${key}" data-series="${key}" fill="none" stroke="${LINE[key]}" stroke-width="${key === "close" ? 1.8 : 1.4}"${dash ? html` stroke-dasharray="${dash}"` : null} points="${col.map((v, i) => `${x(i)},${y(v)}`).join(" ")}"/>`;
  const titleId = `${input.id}-title`;
  const descId = `${input.id}-desc`;
  return html`<svg class="chart" role="img" aria-labelledby="${titleId} ${descId}" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" width="100%" data-y-min="${yMin}" data-y-max="${yMax}" data-top="${PAD.top}" data-plot-height="${plotH}" data-sessions="${n}" xmlns="http://www.w3.org/2000/svg">
<title id="${titleId}">${input.title}</title>
<desc id="${descId}">${input.desc}</desc>
<g class="bands">${bands(series.dates, states, x, step, PAD.top, plotH)}</g>
${entryWindow ? html`<rect class="entry-window" data-level="entry_window" data-low="${entryWindow.low}" data-high="${entryWindow.high}" x="${PAD.left}" y="${y(entryWindow.high)}" width="${plotW}" height="${c2(Math.max(1, y(entryWindow.low) - y(entryWindow.high)))}" fill="#0b57d0" fill-opacity="0.12"/>` : null}
${axis(yMin, yMax, y, PAD.left, CHART_WIDTH - PAD.right, levels.map((l) => y(l.value)))}
${line("sma200", series.sma200)}${line("sma50", series.sma50)}${line("ema21", series.ema21, "5 3")}${line("close", series.close)}
<g class="closes">${series.close.map((v, i) => html`<circle cx="${x(i)}" cy="${y(v)}" r="1" data-date="${series.dates[i]!}" data-close="${v}"/>`)}</g>
<g class="levels">${levels.map(
    (l) =>
      html`<line data-level="${l.kind}" data-value="${l.value}" x1="${PAD.left}" x2="${CHART_WIDTH - PAD.right}" y1="${y(l.value)}" y2="${y(l.value)}" stroke="${LEVEL[l.kind]}" stroke-width="1.4" stroke-dasharray="${l.kind === "stop" ? "6 3" : "2 3"}"/><text x="${CHART_WIDTH - PAD.right + 4}" y="${c2(y(l.value) + 4)}" fill="${LEVEL[l.kind]}" font-size="11">${LEVEL_WORDS[l.kind]}</text>`,
  )}</g>
<text x="${PAD.left}" y="${CHART_HEIGHT - 6}" font-size="11" fill="#4a5060">${series.dates[0] ?? ""}</text>
<text x="${CHART_WIDTH - PAD.right}" y="${CHART_HEIGHT - 6}" font-size="11" fill="#4a5060" text-anchor="end">${series.dates[n - 1] ?? ""}</text>
</svg>`;
}

/** One rect per run of sessions in the same known state; sessions of unknown state get none. */
function bands(dates: readonly string[], states: ReadonlyMap<string, EntryState> | undefined, x: (i: number) => number, step: number, top: number, h: number): Html[] {
  if (!states) return [];
  const out: Html[] = [];
  let i = 0;
  while (i < dates.length) {
    const state = states.get(dates[i]!);
    if (!state) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < dates.length && states.get(dates[j + 1]!) === state) j++;
    const x0 = c2(Math.max(PAD.left, x(i) - step / 2));
    const x1 = c2(Math.min(CHART_WIDTH - PAD.right, x(j) + step / 2));
    out.push(html`<rect data-state="${state}" data-from="${dates[i]!}" data-to="${dates[j]!}" x="${x0}" y="${top}" width="${c2(Math.max(0.5, x1 - x0))}" height="${h}" fill="${STATE_FILL[state]}"/>`);
    i = j + 1;
  }
  return out;
}

/** Four price gridlines with their labels on the right; a label a level's label would overlap is left out. */
function axis(yMin: number, yMax: number, y: (v: number) => number, x0: number, x1: number, taken: readonly number[]): Html {
  const ticks = [0.125, 0.375, 0.625, 0.875].map((f) => yMin + (yMax - yMin) * f);
  return html`<g class="axis">${ticks.map(
    (v) =>
      html`<line x1="${x0}" x2="${x1}" y1="${y(v)}" y2="${y(v)}" stroke="#d5d9e0" stroke-width="1"/>${
        taken.some((t) => Math.abs(t - y(v)) < 13) ? null : html`<text x="${x1 + 4}" y="${c2(y(v) + 4)}" font-size="11" fill="#4a5060">${v >= 100 ? v.toFixed(0) : v.toFixed(2)}</text>`
      }`,
  )}</g>`;
}

/** The chart's legend, in words: lines, levels, and which sessions have a state band. */
export function renderChartLegend(opts: { bands: boolean; knownSessions: number; sessions: number; levels: boolean }): Html {
  const swatch = (colour: string, word: string, dashed = false) =>
    html`<li><svg width="22" height="10" aria-hidden="true"><line x1="0" x2="22" y1="5" y2="5" stroke="${colour}" stroke-width="2"${dashed ? html` stroke-dasharray="5 3"` : null}/></svg> ${word}</li>`;
  return html`<ul class="legend chart-legend">
${swatch(LINE.close, "Daily close")}${swatch(LINE.sma50, "SMA50")}${swatch(LINE.sma200, "SMA200")}${swatch(LINE.ema21, "EMA21", true)}
${opts.levels ? html`${swatch(LEVEL.stop, "Stop", true)}${swatch(LEVEL.target_2r, "2R and 3R targets", true)}<li><span class="key" data-fill="entry"></span> Entry window</li>` : null}
${opts.bands ? (Object.keys(STATE_FILL) as EntryState[]).map((s) => html`<li><span class="key state-${s}"></span> ${s}</li>`) : null}
</ul>
<p class="muted legend-note">${
    opts.bands
      ? `Background bands: the entry state the board published for each session, where its history knows it (${opts.knownSessions} of the ${opts.sessions} sessions drawn); sessions without a band have no recorded state and none is guessed.`
      : `No entry-state bands: the board's history holds no state for these sessions, and none is guessed.`
  }</p>`;
}
