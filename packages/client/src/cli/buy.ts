/**
 * `board-buy /api/board/regime [--rail base|solana|algorand|batched|mpp] [--watch] [--replay]`
 * (`npm run buy --` in the repository, `npx @board/client` where the package is installed): buys
 * one read with this client, as an agent would, and prints what it got, what it paid, the
 * receipt and the balance left. The wallets are the development ones `npm start` funds on its
 * local chains ($DATA_DIR/dev-wallets.json), or keys from the environment (see args.ts usage).
 */
import path from "node:path";
import type { Hex } from "viem";
import { balanceOf } from "../balance.js";
import { BoardClient, type ReadResult } from "../client.js";
import type { ClientError } from "../errors.js";
import { readDevWallets } from "../node/dev-wallets.js";
import { fileReceipts } from "../node/file-receipts.js";
import { createPayer, devWalletConfig, type RailConfig } from "../pay/index.js";
import type { Rail } from "../pay/types.js";
import { ReceiptLog, type Receipt } from "../receipts.js";
import { formatUsdc } from "../spend-cap.js";
import { parseArgs, usage, UsageError, type BuyArgs } from "./args.js";
import { buyEnv, type BuyEnv } from "./env.js";
import { line, printBalance, printFreshness, printReceipt, summary } from "./print.js";

const DEFAULT_DAILY_CAP = "1000000";

/** A path as the reader would type it: relative under the working directory, else absolute. */
function shown(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith("..") ? rel : file;
}

/** The rail's wallet from the environment when its key is set, else the development wallet (board-mcp's too). */
export function railConfig(rail: Rail, env: BuyEnv, walletsFile: string): { config: RailConfig; gateway: string | null; from: string } {
  const evm = env.BOARD_BUYER_EVM_KEY as Hex | undefined;
  const fromEnv = (config: RailConfig) => ({ config, gateway: null, from: "environment" });
  switch (rail) {
    case "base":
    case "mpp":
      if (evm) return fromEnv({ rail, privateKey: evm, ...(env.BOARD_BASE_RPC_URL && { rpcUrl: env.BOARD_BASE_RPC_URL }), ...(env.BOARD_BASE_USDC && { usdc: env.BOARD_BASE_USDC }) });
      break;
    case "batched":
      if (evm) return fromEnv({ rail: "batched", privateKey: evm, ...(env.BOARD_CIRCLE_GATEWAY_URL && { gatewayUrl: env.BOARD_CIRCLE_GATEWAY_URL }) });
      break;
    case "solana":
      if (env.BOARD_BUYER_SOLANA_KEY) return fromEnv({ rail: "solana", secretKey: env.BOARD_BUYER_SOLANA_KEY, ...(env.BOARD_SOLANA_RPC_URL && { rpcUrl: env.BOARD_SOLANA_RPC_URL }) });
      break;
    case "algorand":
      if (env.BOARD_BUYER_ALGORAND_MNEMONIC) {
        if (!env.BOARD_ALGOD_URL) throw new UsageError("BOARD_BUYER_ALGORAND_MNEMONIC needs BOARD_ALGOD_URL (the algod the payment is built against)");
        return fromEnv({ rail: "algorand", mnemonic: env.BOARD_BUYER_ALGORAND_MNEMONIC, algodUrl: env.BOARD_ALGOD_URL, algodToken: env.BOARD_ALGOD_TOKEN });
      }
      break;
  }
  const wallets = readDevWallets(walletsFile);
  return { config: devWalletConfig(wallets, rail), gateway: wallets.gateway, from: shown(walletsFile) };
}

function failure(error: ClientError, base: string): never {
  process.stderr.write(`error: ${error.code}: ${error.message}\n`);
  if (error.code === "network_error") process.stderr.write(`the board is not answering at ${base}: start it with \`npm start\`, or set BOARD_URL\n`);
  process.exit(1);
}

export interface BuyCommand {
  /** How the reader runs it, for the usage text: `npm run buy --`, `npx @board/client`. */
  command: string;
  /** What relative paths ($DATA_DIR, BOARD_RECEIPTS, BOARD_DEV_WALLETS) are relative to. */
  root: string;
  argv: readonly string[];
}

/** Runs the command to its end; exits the process with 1 on a refusal, 2 on a usage error. */
export async function runBuy({ command, root, argv }: BuyCommand): Promise<void> {
  try {
    await buy(command, root, argv);
  } catch (err) {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}

async function buy(command: string, root: string, argv: readonly string[]) {
  let args: BuyArgs | "help";
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n\n${usage(command)}\n`);
    process.exit(2);
  }
  if (args === "help") {
    process.stdout.write(`${usage(command)}\n`);
    return;
  }
  const env = buyEnv();
  const dataDir = path.resolve(root, env.DATA_DIR);
  const { config, gateway, from } = railConfig(args.rail, env, path.resolve(root, env.BOARD_DEV_WALLETS ?? path.join(dataDir, "dev-wallets.json")));
  const base = env.BOARD_URL ?? gateway ?? `http://localhost:${env.PORT}`;
  const receiptsFile = path.resolve(root, env.BOARD_RECEIPTS ?? path.join(dataDir, "receipts.jsonl"));
  const payer = await createPayer(config);
  const client = new BoardClient({ baseUrl: base, payer, dailyCap: args.cap ?? env.BOARD_DAILY_CAP ?? DEFAULT_DAILY_CAP, receipts: new ReceiptLog(fileReceipts(receiptsFile)) });

  line("GET", client.http.url(args.path, args.query));
  line("rail", `${args.rail}, buyer ${payer.address} (wallet from ${from})`);
  const before = await balanceOf(config);

  const show = async (read: ReadResult<unknown>, was: bigint | null): Promise<Receipt | null> => {
    if (!read.ok) failure(read.error, base);
    if (read.receipt) printReceipt(read.receipt);
    else line("served", `${read.served}: nothing paid`);
    line("body", summary(read.body));
    if (args.json) process.stdout.write(`${JSON.stringify(read.body, null, 2)}\n`);
    printFreshness(read.freshness);
    printBalance(await balanceOf(config), was);
    line("today", `${formatUsdc(client.spentToday())} USDC spent of a ${formatUsdc(client.cap!.limit)} USDC daily cap; receipts in ${shown(receiptsFile)}`);
    return read.receipt;
  };

  if (args.watch) {
    const ac = new AbortController();
    process.once("SIGINT", () => ac.abort());
    process.once("SIGTERM", () => ac.abort());
    line("watch", `following ${client.http.url("/api/board/events")}; buying ${args.path} each time it changes (Ctrl-C stops)`);
    let was = before.ok ? before.value.amount : null;
    for await (const event of client.watch(args.path, { query: args.query, signal: ac.signal })) {
      if (event.type === "poll_failed") {
        line("poll", `failed (${event.error.code}: ${event.error.message}); again in ${Math.round(event.retry_in_ms / 1000)} s`);
        continue;
      }
      if (event.type === "events_lost") {
        line("events", `stream lost (${event.error.code}: ${event.error.message}); reopened in ${Math.round(event.retry_in_ms / 1000)} s`);
        continue;
      }
      if (event.type === "polling") {
        line("events", `no event stream here (${event.reason.message}); polling ${client.http.url("/api/board/state")}`);
        continue;
      }
      process.stdout.write("\n");
      line("changed", `${args.path} view ${event.view_hash} (${new Date().toISOString()})`);
      if (!event.result.ok) {
        line("refused", `${event.result.error.code}: ${event.result.error.message}`);
        continue;
      }
      await show(event.result, was);
      const now = await balanceOf(config);
      was = now.ok ? now.value.amount : null;
      line("next", `not before ${event.next_refresh_at}`);
    }
    return;
  }

  const receipt = await show(await client.read(args.path, args.query), before.ok ? before.value.amount : null);
  if (args.replay) {
    if (!receipt) {
      line("replay", "nothing to replay: the read was not paid");
      return;
    }
    const again = await client.replay(receipt);
    if (again.ok && again.redelivery === null) {
      line("replay", "SERVED AS A NEW PURCHASE: the board took a payment it had already settled");
      process.exit(1);
    }
    if (again.ok) line("replay", `delivered again (Payment-Redelivery ${again.redelivery}): the same read, not charged again`);
    else line("replay", `refused: ${again.error.code} (HTTP ${again.error.status ?? "-"}): ${again.error.message}`);
  }
}
