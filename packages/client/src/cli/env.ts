import { z } from "zod";

const url = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/**
 * What the buyer command (`npm run buy`, `board-buy`) and the paying MCP proxy (`board-mcp`) read from the environment. Every
 * buyer key is optional: a rail whose key is not set pays with the development wallet `npm start` wrote to dev-wallets.json.
 */
export const BuyEnv = z.object({
  /** The gateway (default: the one in dev-wallets.json, else http://localhost:$PORT). */
  BOARD_URL: url.optional(),
  PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  /** Where `npm start` keeps its data; dev-wallets.json and receipts.jsonl live here. */
  DATA_DIR: z.string().min(1).default(".data"),
  /** The development wallets file (default $DATA_DIR/dev-wallets.json). */
  BOARD_DEV_WALLETS: z.string().min(1).optional(),
  /** Where receipts are appended, one JSON line each (default $DATA_DIR/receipts.jsonl). */
  BOARD_RECEIPTS: z.string().min(1).optional(),
  /** Daily spending cap in USDC base units (default 1000000, 1 USDC), counted over the receipts file. */
  BOARD_DAILY_CAP: z.string().regex(/^\d+$/, "must be whole USDC base units").optional(),
  /** base, batched and mpp: a 0x 32-byte EVM key. */
  BOARD_BUYER_EVM_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex key").optional(),
  BOARD_BASE_RPC_URL: url.optional(),
  BOARD_BASE_USDC: z.string().regex(/^0x[0-9a-fA-F]{40}$/).optional(),
  BOARD_CIRCLE_GATEWAY_URL: url.optional(),
  /** solana: the 64-byte secret key in base58. */
  BOARD_BUYER_SOLANA_KEY: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/, "must be a base58 64-byte secret key").optional(),
  BOARD_SOLANA_RPC_URL: url.optional(),
  /** algorand: the 25-word mnemonic, and the algod its payment is built against. */
  BOARD_BUYER_ALGORAND_MNEMONIC: z.string().optional(),
  BOARD_ALGOD_URL: url.optional(),
  BOARD_ALGOD_TOKEN: z.string().default(""),
  /** board-mcp: the board's MCP endpoint (default: $BOARD_URL/mcp, else the gateway in dev-wallets.json, else http://localhost:$PORT/mcp). */
  BOARD_MCP_URL: url.optional(),
  /** board-mcp: the most one tool call may cost, in USDC base units (default 10000, 0.01 USDC); a dearer call is refused unpaid. */
  BOARD_MCP_MAX_PRICE: z.string().regex(/^\d+$/, "must be whole USDC base units").default("10000"),
  /** board-mcp: a live-feed license key, sent as X-License-Key (opens the licensed tools). */
  BOARD_LICENSE_KEY: z.string().min(1).optional(),
});
export type BuyEnv = z.infer<typeof BuyEnv>;

/** The environment, checked; a bad value is named (never shown). */
export function buyEnv(): BuyEnv {
  const parsed = BuyEnv.safeParse(process.env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`${issue.path.join(".")} ${issue.message}`);
}
