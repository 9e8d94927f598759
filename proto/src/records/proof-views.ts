import { z } from "zod";
import { IsoDate, IsoDateTime, PRODUCT } from "./common.js";
import { BoardContent } from "./board.js";
import { FreshnessBlock } from "./freshness.js";

export const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

export const Commitment = z.object({
  seq: z.number().int().min(1),
  asof_daily: IsoDate,
  computed_at: IsoDateTime,
  intraday: z.boolean(),
  content_hash: Hex64,
  previous: Hex64,
  commitment: Hex64,
  committed_at: IsoDateTime,
});
export type Commitment = z.infer<typeof Commitment>;

/**
 * A board version's place in the proof chain, as a paid read's receipt names it: the
 * commitment's number, the board's content hash and the commitment itself.
 */
export const CommitmentRef = Commitment.pick({ seq: true, content_hash: true, commitment: true });
export type CommitmentRef = z.infer<typeof CommitmentRef>;

/** /api/board/proof: the latest commitments of the append-only chain and how to check them. */
export const ProofView = z.object({
  product: z.literal(PRODUCT),
  algorithm: z.object({ content: z.string(), chain: z.string() }),
  total: z.number().int().min(0),
  head: Commitment.nullable(),
  /** Newest first; at most PROOF_WINDOW entries. */
  entries: z.array(Commitment),
  verify: z.string(),
  freshness: FreshnessBlock,
});
export type ProofView = z.infer<typeof ProofView>;
export const PROOF_WINDOW = 500;

/** /api/board/asof?sample=1: one complete committed day, with the commitment that proves it. */
export const AsofSampleView = z.object({
  product: z.literal(PRODUCT),
  sample: z.literal(true),
  commitment: Commitment,
  board: BoardContent,
  freshness: FreshnessBlock,
});
export type AsofSampleView = z.infer<typeof AsofSampleView>;

const Bucket = z.object({
  key: z.string(),
  observations: z.number().int().min(0),
  mean_excess_pct: z.number().nullable(),
  hit_rate_pct: z.number().nullable(),
});

/** /api/board/signal-audit: forward returns of past committed boards, against each book's index. */
export const SignalAuditView = z.object({
  product: z.literal(PRODUCT),
  status: z.enum(["ok", "insufficient_history"]),
  message: z.string(),
  committed_days: z.number().int().min(0),
  first_day: IsoDate.nullable(),
  last_day: IsoDate.nullable(),
  horizons: z.array(
    z.object({
      sessions: z.number().int().min(1),
      days_measured: z.number().int().min(0),
      by_state: z.array(Bucket),
      by_opp_decile: z.array(Bucket),
    }),
  ),
  method: z.string(),
  freshness: FreshnessBlock,
});
export type SignalAuditView = z.infer<typeof SignalAuditView>;

/** /api/perf: the engine's model portfolio (the risk-adjusted lanes) against each book's index, percentages only. */
export const PerfView = z.object({
  product: z.literal(PRODUCT),
  status: z.enum(["ok", "insufficient_history"]),
  message: z.string(),
  sessions: z.number().int().min(0),
  first_day: IsoDate.nullable(),
  last_day: IsoDate.nullable(),
  books: z.array(
    z.object({
      book: z.string(),
      benchmark: z.string(),
      model_return_pct: z.number().nullable(),
      benchmark_return_pct: z.number().nullable(),
      excess_pct: z.number().nullable(),
    }),
  ),
  method: z.string(),
  freshness: FreshnessBlock,
});
export type PerfView = z.infer<typeof PerfView>;
