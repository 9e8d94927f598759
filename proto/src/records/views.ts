import { z } from "zod";
import { BookCode, IsoDate, IsoDateTime, PRODUCT } from "./common.js";
import { FullBoard, ProviderInfo } from "./board.js";
import { FreshnessBlock } from "./freshness.js";
import { NameRecord } from "./name-record.js";
import { PaymentRails } from "./payment-rails.js";
import { RegimeVerdictCode, Stance } from "./regime.js";

/** Every view the board pre-renders per snapshot. The route catalogue maps paths onto these. */
export const ViewName = z.enum([
  "agent",
  "preview",
  "delayed",
  "free",
  "regime",
  "buylist",
  "indices",
  "sectors",
  "top-volume",
  "name",
  "leaders",
  "movers",
  "sector",
  "crypto",
  "crypto-night",
  "tradfi-risk",
  "hold",
  "symbols",
  "status",
  "state",
  "asof-sample",
  "signal-audit",
  "proof",
  "perf",
  "live-feed",
  "live-rules",
  "live-setup",
  // History reads, answered per request from the board's history tables.
  "asof",
  "regime-history",
  "name-history",
  "changes",
]);
export type ViewName = z.infer<typeof ViewName>;

/** /api/board/free: the previous trading day's top 3 names per book with regime lines. */
export const FreeBoard = z.object({
  product: z.literal(PRODUCT),
  free: z.literal(true),
  delayed: z.literal(true),
  asof_daily: IsoDate,
  computed_at: IsoDateTime,
  book_order: z.array(BookCode),
  books: z.record(
    BookCode,
    z.object({
      verdict: RegimeVerdictCode,
      stance: Stance,
      line: z.string(),
      top: z.array(NameRecord).max(3),
    }),
  ),
  upgrade: z.record(z.string(), z.string()),
  disclaimer: z.string(),
  freshness: FreshnessBlock,
});
export type FreeBoard = z.infer<typeof FreeBoard>;

/** The delayed full board (MCP get_delayed_board, the landing page): every name, one trading day old. */
export const DelayedBoard = FullBoard;
export type DelayedBoard = FullBoard;

/** /api/board/agent?preview=1: the full board's schema, previous day, top 3 names per book. */
export const PreviewBoard = FullBoard;
export type PreviewBoard = FullBoard;

/**
 * /api/board/status. Fields owned by capabilities that are not running yet are null,
 * and `pending` says which and why, so nothing is invented.
 */
export const BoardStatus = z.object({
  product: z.literal(PRODUCT),
  status: z.enum(["ok", "stale"]),
  asof_daily: IsoDate,
  computed_at: IsoDateTime,
  provider: ProviderInfo,
  snapshots_stored: z.number().int().min(0),
  reads_served: z.record(z.string(), z.number().int().min(0)).nullable(),
  last_settlement_at: IsoDateTime.nullable(),
  performance: z.record(z.string(), z.number()).nullable(),
  /**
   * An addition to SPEC.md's fields: whether payments runs development chains (no real money)
   * and which rails are live; null until payments has reported.
   */
  payments: PaymentRails.nullable(),
  pending: z.record(z.string(), z.string()),
  freshness: FreshnessBlock,
});
export type BoardStatus = z.infer<typeof BoardStatus>;

/** /api/board/state: a content hash per view; poll it and buy only when a hash changes. */
export const BoardState = z.object({
  product: z.literal(PRODUCT),
  asof_daily: IsoDate,
  computed_at: IsoDateTime,
  snapshot: z.string().regex(/^[0-9a-f]{64}$/),
  views: z.partialRecord(ViewName, z.string().regex(/^[0-9a-f]{16,64}$/)),
  freshness: FreshnessBlock,
});
export type BoardState = z.infer<typeof BoardState>;
