/**
 * `npm run verify-proof -- <saved-board.json> [base-url]`: checks a purchased board against
 * the published proof chain (a saved /api/board/agent, or a dated board of /api/board/asof).
 * `npm run verify-proof -- --receipt <receipt-file> [--board <saved-board.json>] [base-url]`:
 * checks a paid read's signed receipt: its signature (x402's offer-receipt verifier, the key
 * resolved from the service's did:web document), that the key is the service's, and that the
 * board version it names is committed; with --board, that the saved board is that version.
 * Exit 0: verified; 1: not; 2: usage or the service could not be asked.
 */
import fs from "node:fs";
import { boardContentHash, checkBoardAgainstProof, checkContentAgainstProof, ProofView, type ProofCheck } from "@board/proto";
import { extractJWSHeader, verifyReceiptSignatureJWS } from "@x402/extensions/offer-receipt";
import { receiptJws } from "./verify-proof/receipt-file.js";

const USAGE = "usage: npm run verify-proof -- <saved-board.json> [base-url]\n       npm run verify-proof -- --receipt <receipt-file> [--board <saved-board.json>] [base-url]\n";

interface Args {
  board?: string;
  receipt?: string;
  base: string;
}

function parseArgs(argv: string[]): Args | null {
  const args: Partial<Args> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--receipt" || a === "--board") {
      const value = argv[++i];
      if (!value) return null;
      args[a === "--receipt" ? "receipt" : "board"] = value;
    } else rest.push(a);
  }
  if (!args.receipt) {
    if (args.board || rest.length === 0) return null;
    args.board = rest.shift();
  }
  if (rest.length > 1) return null;
  return { ...args, base: rest[0] ?? "http://127.0.0.1:8080" };
}

async function proofPage(base: string, before?: number): Promise<ProofView> {
  const url = new URL("/api/board/proof", base);
  if (before !== undefined) url.searchParams.set("before", String(before));
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url.href} answered ${res.status}`);
  return ProofView.parse(await res.json());
}

/** Pages read back at most: 500 commitments each, years of boards every 5 minutes of market hours. */
const MAX_PAGES = 400;

/**
 * The chain from the head down to the commitment of `contentHash`, newest first: the newest page,
 * then older pages (/api/board/proof?before=<seq>) until that content is among them or the chain
 * begins. `total` and `head` are the first page's; the entries are every page's, in order.
 */
async function chainDownTo(base: string, contentHash: string): Promise<ProofView> {
  const proof = await proofPage(base);
  const entries = [...proof.entries];
  for (let pages = 1; pages < MAX_PAGES && !entries.some((e) => e.content_hash === contentHash); pages++) {
    const oldest = entries.at(-1);
    if (!oldest || oldest.seq <= 1) break;
    const older = await proofPage(base, oldest.seq);
    if (older.entries.length === 0) break;
    entries.push(...older.entries);
  }
  return { ...proof, entries };
}

function whyNot(check: Extract<ProofCheck, { ok: false }>, proof: ProofView): string {
  return {
    not_committed: `content ${check.contentHash} is not among the ${proof.entries.length} of ${proof.total} commitments read back from the head`,
    bad_commitment: `commitment #${check.seq} does not match its content hash`,
    broken_link: `commitment #${check.seq} does not link to the one before it`,
  }[check.reason];
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;

/**
 * The board a saved read carries: the read itself (/api/board/agent), or the `board` inside a
 * read that wraps one with its commitment (/api/board/asof?date=, /api/board/asof?sample=1).
 */
function savedBoard(file: string): Record<string, unknown> {
  const read = readJson(file);
  const inner = read["board"];
  return read["commitment"] !== undefined && inner !== null && typeof inner === "object" ? (inner as Record<string, unknown>) : read;
}

async function verifyBoard(file: string, base: string): Promise<number> {
  const board = savedBoard(file);
  const proof = await chainDownTo(base, boardContentHash(board));
  const check = checkBoardAgainstProof(board, proof.entries);
  if (!check.ok) return notVerified(whyNot(check, proof));
  process.stdout.write(`verified: content ${check.contentHash} is commitment #${check.seq}; ${check.linksChecked} link(s) checked up to the head\n`);
  return 0;
}

async function verifyReceipt(file: string, boardFile: string | undefined, base: string): Promise<number> {
  const jws = receiptJws(fs.readFileSync(file, "utf8"));
  if (!jws) return notVerified("no signed receipt found in the file (a JWS, an offer-receipt object, a PAYMENT-RESPONSE or an MPP Payment-Receipt)");
  // Signer authorization (offer-receipt 4.5.1): the key must be one the service publishes under its own did:web.
  const expectedDid = `did:web:${encodeURIComponent(new URL(base).host)}`;
  const kid = extractJWSHeader(jws).kid ?? "";
  if (!kid.startsWith(`${expectedDid}#`)) return notVerified(`the receipt's key ${kid || "(none)"} is not one of ${expectedDid}`);
  let payload: Record<string, unknown>;
  try {
    payload = (await verifyReceiptSignatureJWS({ format: "jws", signature: jws })) as unknown as Record<string, unknown>;
  } catch (err) {
    return notVerified(`the signature does not verify: ${err instanceof Error ? err.message : String(err)}`);
  }
  const { contentHash, commitment, proofSeq } = payload;
  if (typeof contentHash !== "string" || typeof commitment !== "string" || typeof proofSeq !== "number")
    return notVerified("the receipt names no board version (contentHash, commitment, proofSeq)");
  const proof = await chainDownTo(base, contentHash);
  const entry = proof.entries.find((e) => e.content_hash === contentHash);
  if (entry && (entry.commitment !== commitment || entry.seq !== proofSeq))
    return notVerified(`the receipt names commitment #${proofSeq} ${commitment}, the chain has #${entry.seq} ${entry.commitment} for that content`);
  const check = checkContentAgainstProof(contentHash, proof.entries);
  if (!check.ok) return notVerified(whyNot(check, proof));
  if (boardFile) {
    const saved = boardContentHash(savedBoard(boardFile));
    if (saved !== contentHash) return notVerified(`the saved board's content ${saved} is not the version the receipt names (${contentHash})`);
  }
  process.stdout.write(
    `verified: receipt signed by ${kid} for ${String(payload.resourceUrl)}: ${String(payload.amount)} paid by ${String(payload.payer)} on ${String(payload.network)} in ${String(payload.transaction)}\n` +
      `verified: the board sold, content ${contentHash}, is commitment #${check.seq}; ${check.linksChecked} link(s) checked up to the head${boardFile ? "; the saved board is that version" : ""}\n`,
  );
  return 0;
}

function notVerified(why: string): number {
  process.stdout.write(`NOT verified: ${why}\n`);
  return 1;
}

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (!args) {
    process.stderr.write(USAGE);
    return 2;
  }
  return args.receipt ? verifyReceipt(args.receipt, args.board, args.base) : verifyBoard(args.board!, args.base);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`verify-proof: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
