import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { PaymentsMode, Route } from "@board/proto";
import type { BoardViewDeps } from "../reads/board-view.js";
import { renderLandingPage, type BoardSlice } from "./render.js";
import { readSlice, type DrawnViews, type SliceRead } from "./slice.js";

/** The page as sent: both encodings made once per render, and its ETag when it is the drawn page. */
export interface RenderedPage {
  status: 200 | 503;
  etag: string | null;
  identity: Buffer;
  gzip: Buffer;
  /** The views a drawn page was rendered from; null for the warming-up and unreachable pages. */
  views: DrawnViews | null;
  /** The payments mode it was rendered for (null: not known). */
  payments: PaymentsMode | null;
}

export interface LandingPagesOptions {
  routes: readonly Route[];
  /** How long a page is served without asking the board again (bounds bus traffic under load). */
  revalidateMs: number;
  now: () => number;
  warn: (err: unknown, message: string) => void;
  /** Payments' mode (development: the page says no real money), or null when payments does not answer. */
  paymentsMode: () => Promise<PaymentsMode | null>;
}

/**
 * Keeps the rendered page current. A render happens only when the board's views changed
 * (their ETags); in between, the board is asked at most once per `revalidateMs`, by one
 * request, with If-None-Match, so a flood of page views costs the board next to nothing.
 */
export class LandingPages {
  private page: RenderedPage | null = null;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<RenderedPage> | null = null;
  private readonly unavailable = new Map<string, RenderedPage>();
  /** The last mode payments said: kept while it does not answer (a restart does not change it). */
  private payments: PaymentsMode | null = null;

  constructor(
    private readonly deps: BoardViewDeps,
    private readonly opts: LandingPagesOptions,
  ) {}

  current(): Promise<RenderedPage> {
    if (this.page && this.opts.now() - this.checkedAt < this.opts.revalidateMs) return Promise.resolve(this.page);
    this.pending ??= this.refresh().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async refresh(): Promise<RenderedPage> {
    const [read, payments] = await Promise.all([readSlice(this.deps, this.page?.views ?? null), this.opts.paymentsMode()]);
    this.payments = payments ?? this.payments;
    this.page = this.pageFor(read);
    this.checkedAt = this.opts.now();
    return this.page;
  }

  private pageFor(read: SliceRead): RenderedPage {
    const last = this.page;
    if (read.kind === "drawn") {
      const { views } = read;
      if (last?.views && last.views.freeEtag === views.freeEtag && last.views.delayedEtag === views.delayedEtag && last.payments === this.payments) return last;
      return this.render({ kind: "drawn", free: views.free, delayed: views.delayed }, views);
    }
    if (read.kind === "unreachable") {
      this.opts.warn(read.err, "landing page: the board did not answer");
      // The last drawn page states its own as-of day: better than no slice while the board is away.
      if (last?.views && last.payments === this.payments) return last;
      if (last?.views) return this.render({ kind: "drawn", free: last.views.free, delayed: last.views.delayed }, last.views);
    }
    const key = `${read.kind}:${this.payments ?? "unknown"}`;
    let page = this.unavailable.get(key);
    if (!page) {
      page = this.render({ kind: read.kind }, null);
      this.unavailable.set(key, page);
    }
    return page;
  }

  private render(slice: BoardSlice, views: DrawnViews | null): RenderedPage {
    const identity = Buffer.from(renderLandingPage({ slice, routes: this.opts.routes, payments: this.payments }), "utf8");
    const drawn = slice.kind === "drawn";
    return {
      status: drawn ? 200 : 503,
      etag: drawn ? `W/"${createHash("sha256").update(identity).digest("hex").slice(0, 32)}"` : null,
      identity,
      gzip: gzipSync(identity),
      views,
      payments: this.payments,
    };
  }
}
