import { createHash } from "node:crypto";
import { addTradingDays } from "@board/market-calendar";
import { DISCLAIMER, type PerfView, type SignalAuditView } from "@board/proto";
import { html, trusted, type Html } from "../http/html.js";
import { renderProvider } from "../landing/provider.js";
import { STYLE as LANDING_STYLE } from "../landing/style.js";
import type { AuditViews } from "./audit-views.js";
import { renderBarChart, type Bar } from "./svg-bars.js";

/** The landing page's sheet and the charts' few rules: one inline sheet, admitted by its hash. */
export const AUDIT_STYLE = `${LANDING_STYLE}
svg.bars{display:block;max-width:50rem;height:auto;margin:.3rem 0 1rem}
.horizon{border:1px solid var(--line);border-radius:8px;padding:.2rem 1rem .6rem;margin:1rem 0}
.empty{border:1px dashed #8a94a6;background:#eef1f6;padding:.6rem .9rem;border-radius:6px}
.key{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;padding:0;margin:.3rem 0;font-size:.9rem}
.swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:2px;vertical-align:-.1rem;margin-right:.3rem;border:1px solid rgba(0,0,0,.3)}
.swatch.model{background:#0b57d0}
.swatch.index{background:#5f6368}`;

export const AUDIT_STYLE_HASH = `'sha256-${createHash("sha256").update(AUDIT_STYLE, "utf8").digest("base64")}'`;

/** What the page is drawn from: the three free views, or why there are none. */
export type AuditSlice = { kind: "drawn"; views: Pick<AuditViews, "audit" | "perf" | "status"> } | { kind: "warming_up" } | { kind: "unreachable" };

const pluralSessions = (n: number) => `${n} session${n === 1 ? "" : "s"}`;
const pluralDays = (n: number) => `${n} day${n === 1 ? "" : "s"}`;

/**
 * The board's own threshold, as its message states it ("reports figures from 5 on"): the
 * page repeats the board's rule rather than keeping a copy of it. Null when not stated.
 */
export function minimumDays(message: string): number | null {
  const m = /from (\d+) on\b/.exec(message);
  return m ? Number(m[1]) : null;
}

/** The session after whose close a horizon's first figures can appear, at the earliest; null when it cannot be said. */
export function firstFiguresAfter(audit: SignalAuditView, sessions: number): string | null {
  if (!audit.first_day) return null;
  if (audit.status === "ok") return addTradingDays(audit.first_day, sessions);
  const min = minimumDays(audit.message);
  // The board counts days measured at the shortest horizon (one session): the min-th committed day matures a session after it.
  return min === null ? null : addTradingDays(audit.first_day, Math.max(min, sessions));
}

type Horizon = SignalAuditView["horizons"][number];
type Bucket = Horizon["by_state"][number];

const bucketBars = (buckets: readonly Bucket[], label: (key: string) => string): Bar[] =>
  buckets.map((b) => ({
    key: b.key,
    label: label(b.key),
    value: b.observations > 0 ? b.mean_excess_pct : null,
    detail: b.observations > 0 ? `${b.observations} obs, ${b.hit_rate_pct ?? 0}% beat index` : "",
  }));

const decileLabel = (key: string) => {
  const n = Number(key.replace(/^D/, ""));
  return n === 1 ? "D1 (lowest)" : n === 10 ? "D10 (highest)" : key;
};

function renderHorizon(audit: SignalAuditView, h: Horizon): Html {
  const measured = h.by_state.some((b) => b.observations > 0) || h.by_opp_decile.some((b) => b.observations > 0);
  const head = html`<h3 id="h${h.sessions}">Next ${pluralSessions(h.sessions)}</h3>
<p>${pluralDays(h.days_measured)} measured: committed days whose board has a committed close ${pluralSessions(h.sessions)} later.</p>`;
  if (!measured) {
    const after = firstFiguresAfter(audit, h.sessions);
    const min = minimumDays(audit.message);
    const rule =
      audit.status === "ok"
        ? html`Figures for this horizon appear once one committed day has matured at it, that is, once the session ${pluralSessions(h.sessions)} after it has closed and its board is committed.`
        : html`Figures appear once ${min === null ? "enough committed days" : pluralDays(min)} have matured at the one-session horizon and, for this horizon, once a committed day has a committed close ${pluralSessions(h.sessions)} after it.`;
    return html`<section class="horizon" data-horizon="${h.sessions}" aria-labelledby="h${h.sessions}">
${head}
<p class="empty" data-empty="horizon">No figures yet. ${rule}${after ? html` At the earliest, after the close of <time datetime="${after}">${after}</time>.` : null}</p>
</section>`;
  }
  const horizonWords = `over the next ${pluralSessions(h.sessions)}`;
  return html`<section class="horizon" data-horizon="${h.sessions}" aria-labelledby="h${h.sessions}">
${head}
<h4>By entry state</h4>
${renderBarChart({
  id: `state-${h.sessions}`,
  title: `Mean excess return by entry state, ${horizonWords}`,
  desc: `Mean return of names in each entry state minus their book index's return ${horizonWords}, in percent.`,
  bars: bucketBars(h.by_state, (k) => k),
})}
<h4>By opportunity decile</h4>
${renderBarChart({
  id: `decile-${h.sessions}`,
  title: `Mean excess return by opportunity decile, ${horizonWords}`,
  desc: `Mean return of names in each opportunity-score decile (D10 the highest scores) minus their book index's return ${horizonWords}, in percent.`,
  bars: bucketBars(h.by_opp_decile, decileLabel),
})}
</section>`;
}

function renderPerf(perf: PerfView): Html {
  const drawn = perf.books.filter((b) => b.model_return_pct !== null && b.benchmark_return_pct !== null);
  if (perf.status !== "ok" || drawn.length === 0) {
    return html`<p class="empty" data-empty="perf">No figures yet: ${pluralSessions(perf.sessions)} measured. The model lane is compared with its index once enough committed sessions have a committed next session (${perf.message})</p>`;
  }
  const bars: Bar[] = drawn.flatMap((b) => [
    { key: `${b.book}:model`, label: `${b.book} model lane`, value: b.model_return_pct, detail: b.excess_pct === null ? "" : `excess ${b.excess_pct > 0 ? "+" : ""}${b.excess_pct}%`, series: "model" as const },
    { key: `${b.book}:index`, label: `${b.book} ${b.benchmark || "index"}`, value: b.benchmark_return_pct, detail: "index", series: "index" as const },
  ]);
  return html`<p>Compounded over ${pluralSessions(perf.sessions)}${perf.first_day && perf.last_day ? html`, <time datetime="${perf.first_day}">${perf.first_day}</time> to <time datetime="${perf.last_day}">${perf.last_day}</time>` : null}.</p>
<ul class="key" aria-hidden="true"><li><span class="swatch model"></span>model lane</li><li><span class="swatch index"></span>book index</li></ul>
${renderBarChart({
  id: "perf",
  title: "Model lane against its index, per book",
  desc: "Compounded return of each book's model lane and of its index over the same sessions, in percent.",
  bars,
})}`;
}

const COMMITTED_BEFORE = html`<p>Every board is hashed and appended to the proof chain (<a href="/api/board/proof"><code>/api/board/proof</code></a>) when it is published. An entry of this audit is a committed day's scores set against prices of later sessions, and it counts only if that day's board was <strong>committed before</strong> the later board it is measured against was computed: the scores were fixed in the chain before the outcome they are judged by was known. Nothing is back-filled, re-scored or estimated.</p>`;

/** The audit page: pure, views in, HTML out; every value goes through the escaping template. */
export function renderAuditPage(slice: AuditSlice): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Signal audit: Scored Market Board</title>
<meta name="description" content="Forward excess returns of the board's past committed scores, by entry state and opportunity decile, and the model lane against its index.">
<link rel="icon" href="data:,">
<style>${trusted(AUDIT_STYLE)}</style>
</head>
<body>
<header>
<h1>Signal audit</h1>
<p class="lede">How names scored on past committed boards did afterwards, against their book's index: the free reads <a href="/api/board/signal-audit"><code>/api/board/signal-audit</code></a> and <a href="/api/perf"><code>/api/perf</code></a>, drawn.</p>
<nav aria-label="On this page"><a href="#committed">Committed before</a> · <a href="#audit">Forward excess return</a> · <a href="#perf">Model lane</a> · <a href="#method">Method</a> · <a href="/">Landing page</a></nav>
</header>
<main>
${renderBody(slice)}
<section id="committed" aria-labelledby="committed-h">
<h2 id="committed-h">What “committed before” means</h2>
${COMMITTED_BEFORE}
</section>
</main>
<footer>
<p>${DISCLAIMER} Past results; no claim about future returns.</p>
</footer>
</body>
</html>
`.markup;
}

function renderBody(slice: AuditSlice): Html {
  if (slice.kind !== "drawn") {
    const why = slice.kind === "warming_up" ? "The board is warming up: no board is published yet." : "The board is not answering right now.";
    return html`<section id="audit" aria-labelledby="audit-h">
<h2 id="audit-h">Forward excess return</h2>
<p class="notice warming" role="status" data-board="${slice.kind}"><strong>${why}</strong> The audit is drawn once the board answers; retry in a few seconds.</p>
</section>`;
  }
  const audit = slice.views.audit.value;
  const perf = slice.views.perf.value;
  const span = audit.first_day && audit.last_day ? html` from <time datetime="${audit.first_day}">${audit.first_day}</time> to <time datetime="${audit.last_day}">${audit.last_day}</time>` : null;
  return html`${renderProvider(slice.views.status.value.provider)}
<section id="audit" aria-labelledby="audit-h" data-status="${audit.status}">
<h2 id="audit-h">Forward excess return</h2>
<p data-committed-days="${audit.committed_days}">${pluralDays(audit.committed_days)} committed${span}. ${audit.message}</p>
<p>Each bar: the mean return of the names in that group minus their book index's return over the horizon, in percent; beside it, how many name-days it rests on and how often they beat the index.</p>
${audit.horizons.map((h) => renderHorizon(audit, h))}
</section>
<section id="perf" aria-labelledby="perf-h" data-status="${perf.status}">
<h2 id="perf-h">Model lane against its index</h2>
${renderPerf(perf)}
</section>
<section id="method" aria-labelledby="method-h">
<h2 id="method-h">Method</h2>
<p>${audit.method}</p>
<p>${perf.method}</p>
</section>`;
}
