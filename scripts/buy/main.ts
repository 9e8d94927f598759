/**
 * `npm run buy -- /api/board/regime [--rail base|solana|algorand|batched|mpp] [--watch] [--replay]`:
 * the buyer command of @board/client (packages/client/src/cli/buy.ts, `board-buy` where the
 * package is installed), run from the repository: .data/ and the other relative paths are the
 * repository root's, wherever npm was started.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runBuy } from "@board/client/cli";

function repoRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "turbo.json"))) return dir;
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

await runBuy({ command: "npm run buy --", root: repoRoot(path.dirname(fileURLToPath(import.meta.url))), argv: process.argv.slice(2) });
