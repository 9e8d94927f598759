import {
  PRODUCT,
  PROOF_ALGORITHM,
  type AsofSampleView,
  type BoardContent,
  type Commitment,
  type ProofView,
} from "@board/proto";
import { formatPacific } from "@board/market-calendar";
import type { commitments } from "../db/schema.js";

type CommitmentRow = typeof commitments.$inferSelect;

export const VERIFY_HINT =
  "Save a purchased /api/board/agent response to a file and run `npm run verify-proof -- <file> [base-url]`: it recomputes the content hash, finds it here and checks every link up to the head.";

export function commitmentOf(row: CommitmentRow): Commitment {
  return {
    seq: row.seq,
    asof_daily: row.asofDaily,
    computed_at: formatPacific(row.computedAt),
    intraday: row.intraday,
    content_hash: row.contentHash,
    previous: row.previous,
    commitment: row.commitment,
    committed_at: row.committedAt.toISOString(),
  };
}

/** /api/board/proof: the newest commitments (newest first) and how to check a board against them. */
export function proofView(total: number, rows: CommitmentRow[]): Omit<ProofView, "freshness"> {
  const entries = rows.map(commitmentOf);
  return { product: PRODUCT, algorithm: { ...PROOF_ALGORITHM }, total, head: entries[0] ?? null, entries, verify: VERIFY_HINT };
}

/** /api/board/proof?before=<seq>: the commitments below a seq (newest first), with the chain's head as of the read's board. */
export function proofPageView(total: number, head: CommitmentRow | null, rows: CommitmentRow[]): Omit<ProofView, "freshness"> {
  return { ...proofView(total, rows), head: head ? commitmentOf(head) : null };
}

/** /api/board/asof?sample=1: a whole committed board of an earlier day, with its commitment. */
export function asofSampleView(board: BoardContent, row: CommitmentRow): Omit<AsofSampleView, "freshness"> {
  return { product: PRODUCT, sample: true, commitment: commitmentOf(row), board };
}
