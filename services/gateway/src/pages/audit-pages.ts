import type { IncomingMessage, ServerResponse } from "node:http";
import type { BoardViewDeps } from "../reads/board-view.js";
import { AUDIT_STYLE_HASH, renderAuditPage, type AuditSlice } from "./audit.js";
import { readAuditViews, type AuditViews } from "./audit-views.js";
import { PAGE_HEADERS, prepare, sendPrepared, type Prepared } from "./prepared.js";

/** As the landing page's: nothing loads but the page's own hashed sheet; the charts are inline SVG. */
export const AUDIT_CSP = ["default-src 'none'", `style-src ${AUDIT_STYLE_HASH}`, "img-src 'self' data:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join("; ");

/** The audit changes with a session's committed board, not per read. */
const CACHE_CONTROL = "public, max-age=60";
const REVALIDATE_MS = 1000;
const RETRY_SECONDS = 5;

const sameProvider = (a: AuditViews, b: AuditViews) =>
  a.status.etag === b.status.etag || JSON.stringify(a.status.value.provider) === JSON.stringify(b.status.value.provider);

interface Drawn {
  status: 200 | 503;
  body: Prepared;
  views: AuditViews | null;
}

/**
 * Keeps /audit rendered. The board is asked at most once per REVALIDATE_MS, for one request,
 * with each view's ETag; the page is rendered again only when a view it draws changed.
 */
export class AuditPages {
  private page: Drawn | null = null;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<Drawn> | null = null;

  constructor(
    private readonly deps: BoardViewDeps,
    private readonly warn: (err: unknown, message: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const page = await this.current();
    const headers: Record<string, string> = { ...PAGE_HEADERS, "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": AUDIT_CSP };
    if (page.status === 200) headers["Cache-Control"] = CACHE_CONTROL;
    else Object.assign(headers, { "Cache-Control": "no-store", "Retry-After": String(RETRY_SECONDS) });
    sendPrepared(req, res, page.body, headers, page.status);
  }

  /**
   * The page as rendered. Past REVALIDATE_MS the board is asked again, but a page already drawn
   * is sent at once meanwhile (stale while revalidating): no view waits on the bus but the first.
   */
  current(): Promise<Drawn> {
    if (this.page && this.now() - this.checkedAt < REVALIDATE_MS) return Promise.resolve(this.page);
    if (!this.pending) {
      this.pending = this.refresh().finally(() => {
        this.pending = null;
      });
      // Answered by nobody when a drawn page is sent meanwhile: its failure is logged, not lost.
      this.pending.catch((err: unknown) => this.warn(err, "audit page: rendering failed"));
    }
    return this.page ? Promise.resolve(this.page) : this.pending;
  }

  private async refresh(): Promise<Drawn> {
    const read = await readAuditViews(this.deps, this.page?.views ?? null);
    this.page = this.pageFor(read);
    this.checkedAt = this.now();
    return this.page;
  }

  private pageFor(read: Awaited<ReturnType<typeof readAuditViews>>): Drawn {
    const last = this.page;
    if (read.kind === "drawn") {
      const v = read.views;
      // Status changes with every read served; of it the page draws the provider alone.
      const same = last?.views && last.views.audit.etag === v.audit.etag && last.views.perf.etag === v.perf.etag && sameProvider(last.views, v);
      if (last && same) return { ...last, views: v };
      return this.render({ kind: "drawn", views: v }, v);
    }
    if (read.kind === "unreachable") {
      this.warn(read.err, "audit page: the board did not answer");
      // The last drawn audit still says what it measured: better than none while the board is away.
      if (last?.views) return last;
    }
    return this.render({ kind: read.kind }, null);
  }

  private render(slice: AuditSlice, views: AuditViews | null): Drawn {
    const body = prepare(renderAuditPage(slice));
    // A re-render of the same markup keeps the ETag (it is the content's hash).
    if (this.page && this.page.body.etag === body.etag) return { ...this.page, views };
    return { status: slice.kind === "drawn" ? 200 : 503, body, views };
  }
}
