import {
  AsofView,
  BookParam,
  BoardHashParam,
  ChangesView,
  DateParam,
  DaysParam,
  NameHistoryView,
  PRODUCT,
  PROOF_WINDOW,
  ProofView,
  RegimeHistoryView,
  SeqParam,
  SymList,
  type BookCode,
  type ViewName,
} from "@board/proto";
import { BusError } from "@board/service-kit";
import type { z } from "zod";
import { publish, type Publication, type PublishedView } from "../publication.js";
import { commitmentOf, proofPageView } from "../proof/views.js";
import type { SnapshotStore } from "../store.js";
import { HistoryReadCache } from "./read-cache.js";
import type { BoardAt, HistoryReads } from "./reads.js";

/** The reads answered from the history tables per request, not rendered with a publication. */
export const HISTORY_VIEWS: ReadonlySet<ViewName> = new Set(["asof", "regime-history", "name-history", "changes"]);

/** Whether a read is made from the tables: a history read, or a page of the proof chain (the newest page is published). */
export const readFromTables = (view: ViewName, params: Record<string, string> | undefined): boolean =>
  HISTORY_VIEWS.has(view) || (view === "proof" && params?.before !== undefined);

/** Sessions a history read covers when `days` is not given. */
export const DEFAULT_DAYS = { "regime-history": 60, "name-history": 20 } as const;

const param = <T extends z.ZodType>(schema: T, params: Record<string, string>, name: string): z.infer<T> | undefined => {
  const raw = params[name];
  if (raw === undefined) return undefined;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw BusError.worded("invalid_query", `Query parameter '${name}': ${parsed.error.issues[0]?.message ?? "invalid"}.`, name);
  return parsed.data;
};

/**
 * A history read as of a publication's board (the current one, or the one a redelivery bought):
 * its content from the history tables, rendered and checked like a published view, made once
 * per board and parameters (read-cache.ts).
 */
export class HistoryViews {
  constructor(
    private readonly reads: HistoryReads,
    private readonly store: SnapshotStore,
    readonly cache = new HistoryReadCache(),
  ) {}

  view(pub: Publication, view: ViewName, params: Record<string, string>): Promise<PublishedView> {
    // Only a committed board's cut is fixed: without a commitment the read takes every seq.
    if (!pub.commitment) return this.make(pub, view, params);
    return this.cache.get(HistoryReadCache.key(pub.snapshotHash, view, params), () => this.make(pub, view, params));
  }

  private async make(pub: Publication, view: ViewName, params: Record<string, string>): Promise<PublishedView> {
    const at: BoardAt = { seq: pub.commitment?.seq ?? 2_147_483_647, asofDaily: pub.board.asof_daily };
    switch (view) {
      case "asof":
        return this.asof(pub, params);
      case "regime-history": {
        const book = param(BookParam, params, "book");
        const days = param(DaysParam, params, "days") ?? DEFAULT_DAYS["regime-history"];
        const books: BookCode[] = book ? [book] : [...pub.board.book_order];
        const { sessions, changes } = await this.reads.verdictChanges(books, days, at);
        const content = { product: PRODUCT, books, days, first_session: sessions[0] ?? null, last_session: sessions.at(-1) ?? null, changes };
        return publish(pub.board, content, RegimeHistoryView);
      }
      case "name-history": {
        const syms = param(SymList, params, "sym");
        if (!syms) throw BusError.worded("invalid_query", "Query parameter 'sym': is required.", "sym");
        const days = param(DaysParam, params, "days") ?? DEFAULT_DAYS["name-history"];
        const known = new Set(pub.board.names.map((n) => n.sym));
        const unknown = syms.filter((s) => !known.has(s));
        if (unknown.length > 0) throw BusError.worded("invalid_query", `Query parameter 'sym': not on the board: ${unknown.join(", ")}. The symbol directory is at /api/board/symbols.`, "sym");
        const names = await this.reads.nameSessions(syms, days, at);
        return publish(pub.board, { product: PRODUCT, days, names }, NameHistoryView);
      }
      case "changes": {
        const since = param(BoardHashParam, params, "since");
        if (!since) throw BusError.worded("invalid_query", "Query parameter 'since': is required.", "since");
        const got = await this.reads.changesSince(since, at);
        if ("reason" in got) {
          const oldest = got.oldest ? ` The oldest board accepted is ${got.oldest.content_hash} (${got.oldest.computed_at}).` : "";
          if (got.reason === "board_too_old") throw BusError.worded("board_too_old", `That board is older than the boards kept for comparison.${oldest}`, "since");
          if (got.reason === "board_too_new") throw BusError.worded("board_unknown", "That board is newer than the board this read is cut at.", "since");
          throw BusError.worded("board_unknown", `No committed board has that content or snapshot hash.${oldest}`, "since");
        }
        return publish(pub.board, { product: PRODUCT, ...got }, ChangesView);
      }
      case "proof": {
        const before = param(SeqParam, params, "before");
        if (before === undefined) throw BusError.worded("invalid_query", "Query parameter 'before': is required for a page of the chain.", "before");
        // The chain as of the read's board: its head is that board's commitment.
        const head = pub.commitment ? await this.store.commitmentOf(pub.snapshotHash) : ((await this.store.commitments(1)).rows[0] ?? null);
        const below = Math.min(before, (head?.seq ?? 0) + 1);
        const { rows } = await this.store.commitmentsBefore(below, PROOF_WINDOW);
        return publish(pub.board, proofPageView(head?.seq ?? 0, head, rows), ProofView);
      }
      default:
        throw new BusError("not_implemented", 501, `view ${view} is not a history read`);
    }
  }

  private async asof(pub: Publication, params: Record<string, string>): Promise<PublishedView> {
    const date = param(DateParam, params, "date");
    if (!date) throw BusError.worded("invalid_query", "Query parameter 'date': is required (YYYY-MM-DD).", "date");
    const dated = await this.reads.datedBoard(date);
    if (!dated.found) {
      const nearest = [dated.before, dated.after].filter((d) => d !== null).join(" and ");
      throw BusError.worded("session_not_committed", `No board of ${date} is committed.${nearest ? ` Nearest committed sessions: ${nearest}.` : " No board is committed yet."}`, "date");
    }
    const stored = await this.store.byHash(dated.snapshotHash);
    const commitment = await this.store.commitmentOf(dated.snapshotHash);
    if (!stored || !commitment) throw new Error(`session ${date}'s board ${dated.snapshotHash} is not stored with its commitment`);
    // Cut from the read's board (its freshness and receipt), with the dated board's bytes.
    return publish(pub.board, { product: PRODUCT, date, commitment: commitmentOf(commitment), board: stored.board }, AsofView);
  }
}
