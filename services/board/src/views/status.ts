import { PRODUCT, type BoardContent, type BoardStatus, type PerfView } from "@board/proto";

/** Why `payments` is null: payments has not said its mode and rails to this replica yet. */
export const PAYMENTS_PENDING = "null until payments reports its mode and rails";

/**
 * /api/board/status. Reads served belong to metering, the last settlement to payments and
 * performance to the audit: until those run, the fields are null and `pending` says so.
 */
export function statusView(
  board: BoardContent,
  snapshotsStored: number,
  perf: Pick<PerfView, "status" | "books"> | null = null,
): Omit<BoardStatus, "freshness"> {
  // Excess return of each book's model portfolio over its index, in percent; null until measured.
  const performance =
    perf?.status === "ok"
      ? Object.fromEntries(perf.books.filter((b) => b.excess_pct !== null).map((b) => [`${b.book}_excess_pct`, b.excess_pct as number]))
      : null;
  return {
    product: PRODUCT,
    // Pre-rendered per snapshot: how old the board is rides in the per-read freshness block.
    status: "ok",
    asof_daily: board.asof_daily,
    computed_at: board.computed_at,
    provider: board.provider,
    snapshots_stored: snapshotsStored,
    reads_served: null,
    last_settlement_at: null,
    performance,
    payments: null,
    pending: {
      reads_served: "null until metering counts served reads",
      last_settlement_at: "null until payments settles a paid read",
      payments: PAYMENTS_PENDING,
      ...(performance ? {} : { performance: "null until enough committed sessions are measured (see /api/perf)" }),
    },
  };
}
