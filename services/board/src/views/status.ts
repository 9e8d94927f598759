import { PRODUCT, type BoardContent, type BoardStatus } from "@board/proto";

/**
 * /api/board/status. Reads served belong to metering, the last settlement to payments and
 * performance to the audit: until those run, the fields are null and `pending` says so.
 */
export function statusView(board: BoardContent, snapshotsStored: number, stale: boolean): Omit<BoardStatus, "freshness"> {
  return {
    product: PRODUCT,
    status: stale ? "stale" : "ok",
    asof_daily: board.asof_daily,
    computed_at: board.computed_at,
    provider: board.provider,
    snapshots_stored: snapshotsStored,
    reads_served: null,
    last_settlement_at: null,
    performance: null,
    pending: {
      reads_served: "null until metering counts served reads",
      last_settlement_at: "null until payments settles a paid read",
      performance: "null until the signal audit has enough committed history",
    },
  };
}
