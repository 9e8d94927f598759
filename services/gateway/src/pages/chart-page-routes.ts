import type { Express, Request, Response } from "express";
import type { ReadDeps } from "../reads/read.js";
import { sendError } from "../http/errors.js";
import { ChartPageCache, chartPage, sendChartPage } from "./chart-page-shell.js";
import { DelayedSource, readSeries, readStates } from "./chart-page-data.js";
import { renderNamePage } from "./name-page.js";
import { renderSectorPage, sectorEtfOf } from "./sector-page.js";
import { sectorOf, sectorPath } from "../landing/sector-path.js";

export const NAME_PAGE_PATH = "/board/:sym";
export const SECTOR_PAGE_PATH = "/board/sector/:label";

const RETRY_SECONDS = 5;

/** What one gateway keeps for the pages: the delayed board it reads, and the pages made from it. */
class ChartPages {
  readonly source: DelayedSource;
  readonly cache = new ChartPageCache();
  constructor(readonly deps: ReadDeps) {
    this.source = new DelayedSource(deps);
  }
}

/**
 * GET and HEAD /board/<SYM> and /board/sector/<label>: pages for people, drawn from the free
 * tier's delayed board only, each rendered once per board and served from memory after.
 */
export function mountChartPages(app: Express, deps: ReadDeps): void {
  const pages = new ChartPages(deps);
  app.get(SECTOR_PAGE_PATH, (req, res, next) => void serveSector(pages, req, res).catch(next));
  app.get(NAME_PAGE_PATH, (req, res, next) => void serveName(pages, req, res).catch(next));
}

async function drawnBoard(pages: ChartPages, res: Response) {
  const { read, payments } = await pages.source.current();
  if (read.kind === "drawn") return { views: read.views, payments };
  sendError(
    res,
    read.kind === "warming_up" ? "snapshot_unavailable" : "service_unavailable",
    read.kind === "warming_up" ? "The board has no delayed board to draw yet. Retry shortly; see /api/board/status." : "The board is not answering. Retry with backoff; see /api/board/status.",
    { retry_after_seconds: RETRY_SECONDS },
  );
  return null;
}

async function serveName(pages: ChartPages, req: Request, res: Response): Promise<void> {
  const sym = String(req.params.sym ?? "").toUpperCase();
  const drawn = await drawnBoard(pages, res);
  if (!drawn) return;
  const { views, payments } = drawn;
  const board = views.delayed;
  const record = board.names.find((r) => r.sym === sym);
  if (!record) return sendError(res, "not_found", `There is no name ${sym} on the board. The symbols are listed at /api/board/symbols.`, { param: "sym" });
  if (req.params.sym !== sym) return res.redirect(301, `/board/${encodeURIComponent(sym)}`);
  const page = await pages.cache.get(`${views.delayedEtag}|${payments ?? ""}`, `name:${sym}`, async () => {
    const [series, states] = await Promise.all([readSeries(pages.deps, sym, board.asof_daily, board.computed_at), readStates(pages.deps, sym, board.asof_daily)]);
    return chartPage(renderNamePage({ board, record, series, states, payments }), series !== null);
  });
  if (page) sendChartPage(req, res, page);
}

async function serveSector(pages: ChartPages, req: Request, res: Response): Promise<void> {
  const segment = String(req.params.label ?? "");
  const label = sectorOf(segment);
  if (!label) return sendError(res, "not_found", `There is no sector ${segment}. The sector labels are listed at /api/board/symbols.`, { param: "label" });
  if (segment !== sectorPath(label).slice("/board/sector/".length)) return res.redirect(301, sectorPath(label));
  const drawn = await drawnBoard(pages, res);
  if (!drawn) return;
  const { views, payments } = drawn;
  const board = views.delayed;
  const page = await pages.cache.get(`${views.delayedEtag}|${payments ?? ""}`, `sector:${label}`, async () => {
    const etf = sectorEtfOf(board, label);
    const [etfSeries, etfStates] = etf
      ? await Promise.all([readSeries(pages.deps, etf, board.asof_daily, board.computed_at), readStates(pages.deps, etf, board.asof_daily)])
      : [null, new Map()];
    return chartPage(renderSectorPage({ board, label, etf, etfSeries, etfStates, payments }), etf === null || etfSeries !== null);
  });
  if (page) sendChartPage(req, res, page);
}
