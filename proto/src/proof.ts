import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/** The chain starts from this commitment. */
export const GENESIS_COMMITMENT = "0".repeat(64);

export const PROOF_ALGORITHM = {
  content: "sha256 (hex) of the RFC 8785 canonical JSON of the full board as served, without its freshness block",
  chain: "commitment = sha256 (hex) of the UTF-8 text previous_commitment + ':' + content_hash; the first entry's previous is 64 zeros",
} as const;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** The content hash a buyer can recompute from a purchased board: its freshness block is per read, so it is left out. */
export function boardContentHash(board: Record<string, unknown>): string {
  const { freshness: _freshness, ...content } = board;
  const text = canonicalize(content);
  if (text === undefined) throw new Error("board cannot be canonicalized");
  return sha256(text);
}

export function chainCommitment(previous: string, contentHash: string): string {
  return sha256(`${previous}:${contentHash}`);
}

export interface ChainLink {
  seq: number;
  content_hash: string;
  previous: string;
  commitment: string;
}

export type ProofCheck =
  | { ok: true; seq: number; contentHash: string; linksChecked: number }
  | { ok: false; reason: "not_committed" | "broken_link" | "bad_commitment"; contentHash: string; seq?: number };

/**
 * Checks a purchased board against published commitments (newest first, contiguous):
 * its content hash must be committed, and every link from it up to the newest must hold.
 */
export function checkBoardAgainstProof(board: Record<string, unknown>, entries: readonly ChainLink[]): ProofCheck {
  return checkContentAgainstProof(boardContentHash(board), entries);
}

/**
 * The same check from a content hash alone (a signed receipt names it): it must be committed,
 * and every link from it up to the newest must hold.
 */
export function checkContentAgainstProof(contentHash: string, entries: readonly ChainLink[]): ProofCheck {
  const at = entries.findIndex((e) => e.content_hash === contentHash);
  if (at < 0) return { ok: false, reason: "not_committed", contentHash };
  for (let i = at; i >= 0; i--) {
    const e = entries[i]!;
    if (chainCommitment(e.previous, e.content_hash) !== e.commitment) return { ok: false, reason: "bad_commitment", contentHash, seq: e.seq };
    const newer = entries[i - 1];
    if (newer && newer.previous !== e.commitment) return { ok: false, reason: "broken_link", contentHash, seq: newer.seq };
  }
  return { ok: true, seq: entries[at]!.seq, contentHash, linksChecked: at + 1 };
}
