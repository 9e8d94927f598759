import { RAILS, type Rail } from "../pay/types.js";
import { READS, type Query, type ReadPath } from "../routes.js";

/** `command`: how the reader runs it (`npm run buy --` in the repository, `npx @board/client` elsewhere). */
export const usage = (command: string): string => `usage: ${command} <path> [--rail ${RAILS.join("|")}] [--watch] [--replay] [--json] [--cap <base units>]

Buys one read of the board and prints a summary of the body, the price, the receipt and the
buyer's balance after. <path> is a read such as /api/board/regime or /api/board/name?sym=AAPL.

  --rail     the rail to pay on (default base)
  --watch    keep going: poll /api/board/state and buy again each time the view changes (Ctrl-C stops)
  --replay   send the same payment again afterwards: the board delivers the same read again, not charged twice
  --json     print the whole body as JSON too
  --cap      daily spending cap in USDC base units (default BOARD_DAILY_CAP, else 1000000 = 1 USDC)

Wallets: the development wallets \`npm start\` writes to .data/dev-wallets.json, unless a key is
in the environment: BOARD_BUYER_EVM_KEY (base, batched, mpp; BOARD_BASE_RPC_URL and
BOARD_CIRCLE_GATEWAY_URL for the balance), BOARD_BUYER_SOLANA_KEY (with BOARD_SOLANA_RPC_URL),
BOARD_BUYER_ALGORAND_MNEMONIC (with BOARD_ALGOD_URL, BOARD_ALGOD_TOKEN). BOARD_URL names the
gateway; receipts are appended to $DATA_DIR/receipts.jsonl (BOARD_RECEIPTS).`;

export interface BuyArgs {
  path: ReadPath;
  query: Query;
  rail: Rail;
  watch: boolean;
  replay: boolean;
  json: boolean;
  cap: string | null;
}

export class UsageError extends Error {}

export function parseArgs(argv: readonly string[]): BuyArgs | "help" {
  const args: Omit<BuyArgs, "path" | "query"> = { rail: "base", watch: false, replay: false, json: false, cap: null };
  let target: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith("--") ? (arg.split(/=(.*)/s) as [string, string | undefined]) : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === "--help" || flag === "-h") return "help";
    else if (flag === "--rail") {
      const rail = value();
      if (!(RAILS as readonly string[]).includes(rail)) throw new UsageError(`unknown rail ${rail}: one of ${RAILS.join(", ")}`);
      args.rail = rail as Rail;
    } else if (flag === "--watch") args.watch = true;
    else if (flag === "--replay") args.replay = true;
    else if (flag === "--json") args.json = true;
    else if (flag === "--cap") {
      const cap = value();
      if (!/^\d+$/.test(cap)) throw new UsageError("--cap takes whole USDC base units (1000000 = 1 USDC)");
      args.cap = cap;
    } else if (flag.startsWith("-")) throw new UsageError(`unknown option ${flag}`);
    else if (target === null) target = arg;
    else throw new UsageError(`one path at a time (got ${target} and ${arg})`);
  }
  if (target === null) throw new UsageError("which read? e.g. /api/board/regime");
  const url = new URL(target, "http://board.invalid");
  if (!(url.pathname in READS)) throw new UsageError(`${url.pathname} is not a read of the board`);
  return { ...args, path: url.pathname as ReadPath, query: Object.fromEntries(url.searchParams) };
}
