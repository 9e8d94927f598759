/**
 * `npm run verify-proof -- <saved-board.json> [base-url]`: checks a purchased board against
 * the published proof chain. Exit 0: committed and every link holds; 1: it does not; 2: usage.
 */
import fs from "node:fs";
import { checkBoardAgainstProof, ProofView } from "@board/proto";

async function main(argv: string[]): Promise<number> {
  const [file, base = "http://127.0.0.1:8080"] = argv;
  if (!file) {
    process.stderr.write("usage: npm run verify-proof -- <saved-board.json> [base-url]\n");
    return 2;
  }
  const board = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  const res = await fetch(new URL("/api/board/proof", base));
  if (!res.ok) throw new Error(`${base}/api/board/proof answered ${res.status}`);
  const proof = ProofView.parse(await res.json());
  const check = checkBoardAgainstProof(board, proof.entries);
  if (check.ok) {
    process.stdout.write(`verified: content ${check.contentHash} is commitment #${check.seq}; ${check.linksChecked} link(s) checked up to the head\n`);
    return 0;
  }
  const why = {
    not_committed: `content ${check.contentHash} is not among the ${proof.entries.length} newest of ${proof.total} commitments`,
    bad_commitment: `commitment #${check.seq} does not match its content hash`,
    broken_link: `commitment #${check.seq} does not link to the one before it`,
  }[check.reason];
  process.stdout.write(`NOT verified: ${why}\n`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`verify-proof: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
