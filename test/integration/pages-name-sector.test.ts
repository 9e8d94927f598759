import http from "node:http";
import { mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { boardRead, FullBoard, NameSeries, SERIES_STREAM, seriesSubject, type Snapshot } from "@board/proto";
import { requestBytes } from "@board/service-kit";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MarketSimulator } from "../../services/scanner-ingest/src/market/simulator.js";
import { nameSeries, publishSeries, type SeriesPublished } from "../../services/scanner-ingest/src/series.js";
import { buildSnapshotWithBars } from "../../services/scanner-ingest/src/snapshot.js";
import { loadUniverse } from "../../services/scanner-ingest/src/universe.js";
import { sectorMembers } from "../../services/gateway/src/pages/sector-page.js";
import { sectorPath } from "../../services/gateway/src/landing/sector-path.js";
import { Stack, until } from "./harness.js";

/** Debian's chromium; never a downloaded browser. */
const CHROMIUM = "/usr/bin/chromium";
const AXE_SOURCE = readFileSync(fileURLToPath(new URL("../../node_modules/axe-core/axe.min.js", import.meta.url)), "utf8");
const SHOTS = fileURLToPath(new URL("../artifacts/screenshots/", import.meta.url));

const stack = new Stack();
let browser: Browser;
let delayed: FullBoard;
/** The free board's lane entry the name page is checked on: a name with a setup. */
let withSetup: { sym: string; stop: number; targets: [number, number]; low: number; high: number };
let published: { snapshotMs: number; seriesMs: number; series: SeriesPublished; snapshotBytes: number };

/** Two end-of-day boards scored by the scanner's own code on the simulator, each published with its series. */
async function publishScannedDays(): Promise<void> {
  const universe = loadUniverse();
  const provider = new MarketSimulator(universe.entries);
  const days = [
    { asofDaily: "2026-11-19", at: new Date("2026-11-19T22:00:00Z") },
    { asofDaily: "2026-11-20", at: new Date("2026-11-20T22:00:00Z") },
  ];
  for (const d of days) {
    const { snapshot, bars } = await buildSnapshotWithBars({ universe, provider, at: d.at, intraday: false, asofDaily: d.asofDaily });
    const t0 = performance.now();
    await stack.publish(snapshot satisfies Snapshot);
    const t1 = performance.now();
    const series = await publishSeries(stack.nc, nameSeries(snapshot, bars));
    const t2 = performance.now();
    published = { snapshotMs: t1 - t0, seriesMs: t2 - t1, series, snapshotBytes: JSON.stringify(snapshot).length };
  }
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  await stack.start();
  await stack.startBoard();
  await publishScannedDays();
  await stack.untilServing("2026-11-20");
  const reply = await requestBytes(stack.nc, boardRead, { view: "delayed", encoding: "identity" }, { timeoutMs: 2000 });
  delayed = FullBoard.parse(JSON.parse(Buffer.from(reply.body).toString("utf8")));
  const entry = delayed.book_order.flatMap((b) => [...delayed.books[b]!.lanes.swing, ...delayed.books[b]!.lanes.risk_adjusted])[0];
  if (!entry) throw new Error("the simulated delayed board has no lane entry to check a setup on");
  withSetup = { sym: entry.sym, stop: entry.stop, targets: entry.targets, low: entry.entry_window.low, high: entry.entry_window.high };
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack.stop();
});

function raw(path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    http
      .request(`${stack.base}${path}`, { method: "GET", headers }, (r) => {
        const chunks: Buffer[] = [];
        r.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve({ status: r.statusCode ?? 0, headers: r.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject)
      .end();
  });
}

async function seriesOf(sym: string): Promise<NameSeries> {
  const jsm = await stack.nc.jetstreamManager();
  const m = await jsm.streams.getMessage(SERIES_STREAM, { last_by_subj: seriesSubject(delayed.asof_daily, sym) });
  return NameSeries.parse(JSON.parse(new TextDecoder().decode(m.data)));
}

interface Visit {
  page: Page;
  status: number;
  consoleErrors: string[];
  requests: string[];
  serious: string[];
}

/** Opens a page, records console errors and every request, and runs axe-core on it. */
async function visit(path: string, shot: string): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const v: Visit = { page, status: 0, consoleErrors: [], requests: [], serious: [] };
  page.on("console", (m) => {
    if (m.type() === "error") v.consoleErrors.push(m.text());
  });
  page.on("pageerror", (e) => v.consoleErrors.push(e.message));
  page.on("request", (r) => v.requests.push(r.url()));
  const res = await page.goto(`${stack.base}${path}`, { waitUntil: "load" });
  v.status = res?.status() ?? 0;
  await page.screenshot({ path: `${SHOTS}${shot}.png`, fullPage: true });
  // The page's CSP admits no script, so a <script> tag would be refused: axe-core is evaluated
  // through the devtools protocol instead, which the page's policy does not govern.
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }> } }).axe;
    return (await axe.run()).violations.map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.length }));
  });
  v.serious = result.filter((x) => x.impact === "serious" || x.impact === "critical").map((x) => `${x.id} (${x.impact}, ${x.nodes})`);
  return v;
}

function expectOwnOriginOnly(v: Visit) {
  expect(v.consoleErrors).toEqual([]);
  for (const url of v.requests) expect(new URL(url).origin, url).toBe(stack.base);
}

describe("name and sector pages", () => {
  it("publishes each board's series apart from the snapshot, within the bus's limits", () => {
    expect(published.series.messages).toBe(delayed.names.length);
    expect(published.series.largest).toBeLessThan(64 * 1024);
    console.log(
      `series: ${published.series.messages} messages, ${published.series.bytes} bytes (largest ${published.series.largest}), published in ${published.seriesMs.toFixed(0)} ms; snapshot ${published.snapshotBytes} bytes in ${published.snapshotMs.toFixed(0)} ms`,
    );
  });

  it("draws a name: the scanner's closes and averages, the free board's setup, states only where the history knows them", async () => {
    const { sym } = withSetup;
    const record = delayed.names.find((r) => r.sym === sym)!;
    const series = await seriesOf(sym);
    const r = await raw(`/board/${sym}`);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
    const csp = String(r.headers["content-security-policy"]);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(csp).not.toContain("unsafe");

    const v = await visit(`/board/${sym}`, `name-page-${sym}`);
    try {
      const { page } = v;
      expect(v.status).toBe(200);
      expectOwnOriginOnly(v);
      expect(v.serious).toEqual([]);
      expect(await page.locator("h1").count()).toBe(1);
      expect(await page.locator('[data-simulated="true"]').count()).toBe(1);
      expect(await page.locator("svg.chart title").textContent()).toContain(sym);
      expect(await page.locator("svg.chart desc").count()).toBe(1);

      // Every plotted close is the scanner's close of that session, where the scale puts it.
      const svg = page.locator("svg.chart");
      const [yMin, yMax, top, h] = await Promise.all(["data-y-min", "data-y-max", "data-top", "data-plot-height"].map(async (a) => Number(await svg.getAttribute(a))));
      const points = await page.locator("svg.chart g.closes circle").evaluateAll((els) =>
        els.map((e) => ({ date: e.getAttribute("data-date"), close: Number(e.getAttribute("data-close")), cy: Number(e.getAttribute("cy")) })),
      );
      expect(points.length).toBe(series.dates.length);
      points.forEach((p, i) => {
        expect(p.date).toBe(series.dates[i]);
        expect(p.close).toBe(series.close[i]);
        expect(Math.abs(p.cy - (top! + ((yMax! - p.close) / (yMax! - yMin!)) * h!))).toBeLessThan(0.01);
      });
      // The board's last session: its close is the price the delayed board published (which the board gives to the cent).
      expect(points.at(-1)!.date).toBe(delayed.asof_daily);
      expect(points.at(-1)!.close).toBeCloseTo(record.price, 2);
      for (const key of ["sma50", "sma200", "ema21"] as const) {
        const drawn = (await page.locator(`polyline[data-series="${key}"]`).getAttribute("points"))!.split(" ");
        expect(drawn.length).toBe(series.dates.length);
        expect(Number(drawn.at(-1)!.split(",")[1])).toBeCloseTo(top! + ((yMax! - series[key].at(-1)!) / (yMax! - yMin!)) * h!, 1);
        expect(Number(await page.locator(`tr[data-level-row="${key}"] td`).getAttribute("data-value"))).toBe(series[key].at(-1));
      }

      // The setup's levels are the free board's, drawn and tabled.
      expect(Number(await page.locator('line[data-level="stop"]').getAttribute("data-value"))).toBe(withSetup.stop);
      expect(Number(await page.locator('line[data-level="target_2r"]').getAttribute("data-value"))).toBe(withSetup.targets[0]);
      expect(Number(await page.locator('line[data-level="target_3r"]').getAttribute("data-value"))).toBe(withSetup.targets[1]);
      expect(Number(await page.locator('rect[data-level="entry_window"]').getAttribute("data-low"))).toBe(withSetup.low);
      expect(Number(await page.locator('tr[data-level-row="stop"] td').getAttribute("data-value"))).toBe(withSetup.stop);
      // ...and drawn where the scale of the closes puts them: each line at its level, the entry window from its high to its low.
      const at = (v: number) => top! + ((yMax! - v) / (yMax! - yMin!)) * h!;
      for (const [kind, value] of [["stop", withSetup.stop], ["target_2r", withSetup.targets[0]], ["target_3r", withSetup.targets[1]]] as const) {
        const line = page.locator(`line[data-level="${kind}"]`);
        for (const a of ["y1", "y2"]) expect(Math.abs(Number(await line.getAttribute(a)) - at(value)), `${kind} ${a}`).toBeLessThan(0.01);
      }
      const entryRect = page.locator('rect[data-level="entry_window"]');
      expect(Number(await entryRect.getAttribute("data-high"))).toBe(withSetup.high);
      const wy = Number(await entryRect.getAttribute("y"));
      const wh = Number(await entryRect.getAttribute("height"));
      expect(Math.abs(wy - at(withSetup.high))).toBeLessThan(0.01);
      expect(Math.abs(wy + wh - Math.max(at(withSetup.low), at(withSetup.high) + 1))).toBeLessThan(0.02);

      // Bands only for sessions the board recorded, never past the delayed board's day: here its one stored session.
      const bands = await page.locator("svg.chart rect[data-state]").evaluateAll((els) => els.map((e) => [e.getAttribute("data-from"), e.getAttribute("data-to"), e.getAttribute("data-state")]));
      expect(bands).toEqual([[delayed.asof_daily, delayed.asof_daily, record.state]]);
      expect(await page.locator(".legend-note").textContent()).toContain(`1 of the ${series.dates.length} sessions`);

      // Scores and its books' verdicts, as the delayed board has them.
      expect(await page.locator('[data-score="state"]').textContent()).toContain(record.state);
      for (const code of record.bk) expect(await page.locator(`tr[data-book="${code}"] [data-verdict]`).textContent()).toBe(delayed.books[code]!.regime.verdict);
      expect(await page.locator("[data-sector-link]").getAttribute("href")).toBe(sectorPath(record.sector as Parameters<typeof sectorPath>[0]));
    } finally {
      await v.page.close();
    }
  });

  it("draws a sector: members ranked by opportunity and the sector ETF's chart; the heat map links there", async () => {
    const card = delayed.books.macro!.sector_cards.find((c) => c.label !== "Index")!;
    const path = sectorPath(card.label as Parameters<typeof sectorPath>[0]);
    const landing = (await raw("/")).body.toString("utf8");
    await until(async () => (await raw("/")).body.toString("utf8").includes(`href="${path}"`));
    expect(landing.length).toBeGreaterThan(0);

    const v = await visit(path, `sector-page-${card.label.replace(/\W+/g, "-")}`);
    try {
      const { page } = v;
      expect(v.status).toBe(200);
      expectOwnOriginOnly(v);
      expect(v.serious).toEqual([]);
      const members = sectorMembers(delayed, card.label as Parameters<typeof sectorMembers>[1]);
      const rows = await page.locator("table.members tbody tr").evaluateAll((els) => els.map((e) => e.getAttribute("data-sym")));
      expect(rows).toEqual(members.map((m) => m.sym));
      const etf = await seriesOf(card.sym);
      const closes = await page.locator("svg.chart g.closes circle").evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-close"))));
      expect(closes).toEqual(etf.close);
      // The ETF's one recorded session up to the delayed board, its state as that board gave it.
      const etfRecord = delayed.names.find((r) => r.sym === card.sym)!;
      const bands = await page.locator("svg.chart rect[data-state]").evaluateAll((els) => els.map((e) => [e.getAttribute("data-from"), e.getAttribute("data-state")]));
      expect(bands).toEqual([[delayed.asof_daily, etfRecord.state]]);
    } finally {
      await v.page.close();
    }
  });

  it("answers an unknown symbol or sector with the API's error body, 404", async () => {
    for (const path of ["/board/NOSUCH", "/board/sector/no-such-sector"]) {
      const r = await raw(path);
      expect(r.status, path).toBe(404);
      expect(r.headers["content-type"]).toMatch(/^application\/json/);
      const body = JSON.parse(r.body.toString("utf8")) as { error: { code: string; status: number; message: string } };
      expect(body.error).toMatchObject({ code: "not_found", status: 404 });
    }
  });

  it("serves a name page from its rendered copy: a warm page reads no series and no name history, and checks the delayed board at most once a second", async () => {
    const path = `/board/${withSetup.sym}`;
    await raw(path);
    // Every bus question a page could ask: board reads (by view) and the stream's message gets.
    const asked: string[] = [];
    const viewOf = (data: Uint8Array) => {
      try {
        return (JSON.parse(new TextDecoder().decode(data)) as { view?: string }).view ?? "?";
      } catch {
        return "?";
      }
    };
    const watch = [stack.nc.subscribe("board.v1.>"), stack.nc.subscribe("$JS.API.DIRECT.GET.>"), stack.nc.subscribe("$JS.API.STREAM.MSG.GET.>")];
    for (const sub of watch) void (async () => { for await (const m of sub) asked.push(m.subject.startsWith("board.") ? `${m.subject} ${viewOf(m.data)}` : m.subject); })();
    await stack.nc.flush();
    const times: number[] = [];
    let bytes = 0;
    let gzipBytes = 0;
    const t0 = performance.now();
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      const r = await raw(path, i % 2 ? { "accept-encoding": "gzip" } : {});
      times.push(performance.now() - t);
      expect(r.status).toBe(200);
      if (i % 2) gzipBytes = r.body.length;
      else bytes = r.body.length;
    }
    const seconds = (performance.now() - t0) / 1000;
    await stack.nc.flush();
    // The page itself is not made again: no series read, no name history; only the delayed
    // board's revalidation (its two views, as the landing page's, at most once a second).
    expect(asked.filter((a) => !a.startsWith("board.v1.read ") || a.endsWith(" name-history"))).toEqual([]);
    expect(asked.length, asked.join(", ")).toBeLessThanOrEqual(2 * (Math.ceil(seconds) + 1));
    // The watch sees what a page asks: a name not drawn yet reads its history and its series.
    asked.length = 0;
    const cold = delayed.names.map((n) => n.sym).findLast((sym) => sym !== withSetup.sym && !sym.includes("-"))!;
    expect((await raw(`/board/${cold}`)).status).toBe(200);
    await stack.nc.flush();
    for (const sub of watch) sub.unsubscribe();
    expect(asked.some((a) => a.endsWith(" name-history"))).toBe(true);
    expect(asked.some((a) => a.startsWith("$JS.API."))).toBe(true);
    // The latency is the bench's to bound (a timed assertion on a shared machine is a coin toss); said here for the record.
    times.sort((a, b) => a - b);
    console.log(`name page: p50 ${times[150]!.toFixed(2)} ms, p99 ${times[Math.ceil(times.length * 0.99) - 1]!.toFixed(2)} ms, ${bytes} bytes (${gzipBytes} gzip)`);
  });
});
