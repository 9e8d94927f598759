import { boardRead, NameHistoryView, NameSeries, SERIES_STREAM, seriesSubject, type EntryState, type PaymentsMode } from "@board/proto";
import { requestBytes } from "@board/service-kit";
import type { BoardViewDeps } from "../reads/board-view.js";
import { readPaymentsMode } from "../landing/payments-mode.js";
import { readSlice, type DrawnViews, type SliceRead } from "../landing/slice.js";

/**
 * A name's series as the scanner published it with the delayed board (the same session and the
 * same computed_at), or null: a series of another board would draw numbers this board was not
 * computed from, so none is drawn rather than a near one.
 */
export async function readSeries(deps: BoardViewDeps, sym: string, asofDaily: string, computedAt: string): Promise<NameSeries | null> {
  try {
    const jsm = await deps.nc.jetstreamManager();
    const m = await jsm.streams.getMessage(SERIES_STREAM, { last_by_subj: seriesSubject(asofDaily, sym) });
    const parsed = NameSeries.safeParse(JSON.parse(new TextDecoder().decode(m.data)));
    if (!parsed.success || parsed.data.sym !== sym) return null;
    return Date.parse(parsed.data.computed_at) === Date.parse(computedAt) ? parsed.data : null;
  } catch {
    // No message for that session and name (404), or the stream is not there: no chart.
    return null;
  }
}

/**
 * The entry state the board recorded per session, up to and including the delayed board's
 * session (never a later one: the page shows the free tier's day, no more); empty when the
 * board's history does not answer.
 */
export async function readStates(deps: BoardViewDeps, sym: string, throughDate: string): Promise<Map<string, EntryState>> {
  try {
    const reply = await requestBytes(deps.nc, boardRead, { view: "name-history", params: { sym, days: "250" }, encoding: "identity" }, { timeoutMs: deps.timeoutMs });
    const view = NameHistoryView.parse(JSON.parse(Buffer.from(reply.body).toString("utf8")));
    const sessions = view.names.find((n) => n.sym === sym)?.sessions ?? [];
    return new Map(sessions.filter((s) => s.date <= throughDate).map((s) => [s.date, s.state]));
  } catch {
    return new Map();
  }
}

const REVALIDATE_MS = 1000;

/** The delayed board's views and payments' mode, asked again at most once a second (as the landing page does). */
export class DelayedSource {
  private read: SliceRead | null = null;
  private payments: PaymentsMode | null = null;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | null = null;

  constructor(private readonly deps: BoardViewDeps) {}

  async current(): Promise<{ read: SliceRead; payments: PaymentsMode | null }> {
    if (!this.read || performance.now() - this.checkedAt >= REVALIDATE_MS) {
      this.pending ??= this.refresh().finally(() => {
        this.pending = null;
      });
      await this.pending;
    }
    return { read: this.read!, payments: this.payments };
  }

  private async refresh(): Promise<void> {
    const last: DrawnViews | null = this.read?.kind === "drawn" ? this.read.views : null;
    const [read, payments] = await Promise.all([readSlice(this.deps, last), readPaymentsMode(this.deps)]);
    // The last drawn board is kept while the board does not answer: its page states its own day.
    this.read = read.kind === "unreachable" && last ? { kind: "drawn", views: last } : read;
    this.payments = payments ?? this.payments;
    this.checkedAt = performance.now();
  }
}
