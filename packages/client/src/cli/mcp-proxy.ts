/**
 * `board-mcp [<mcp url>] [--rail base|solana|algorand|batched] [--max-price <base units>] [--cap <base units>]`:
 * a local stdio MCP server that stands in for the board's remote one, so a host that cannot pay
 * (Claude Desktop, Cursor, VS Code, Claude Code) gets paid reads. Tools (descriptions, annotations,
 * schemas, _meta), prompts and resources are the remote's, passed through. A tool call answered
 * with x402's PaymentRequired (x402 over MCP: isError, structuredContent) is paid here: refused
 * unpaid above the per-call maximum or the daily cap, else one offer signed with this package's
 * payer for the configured wallet (board-buy's), the call made again with _meta["x402/payment"],
 * and its settlement kept as a receipt. stdout is the MCP stream: everything else goes to stderr.
 */
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  ResourceUpdatedNotificationSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  EmptyResultSchema,
  type CallToolRequest,
  type CallToolResult,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { X402_MCP_PAYMENT_META, X402_MCP_RESPONSE_META } from "@board/proto";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import type { ClientError } from "../errors.js";
import { fileReceipts } from "../node/file-receipts.js";
import { createPayer } from "../pay/index.js";
import { RAILS, type Quote, type Rail } from "../pay/types.js";
import { ReceiptLog } from "../receipts.js";
import { formatUsdc, SpendCap, type Hold } from "../spend-cap.js";
import { railConfig } from "./buy.js";
import { buyEnv } from "./env.js";

/** The rails whose payers sign x402 offers (MPP is not carried over MCP). */
const MCP_RAILS = RAILS.filter((r) => r !== "mpp");
const DEFAULT_DAILY_CAP = "1000000";

export const usage = (command: string): string => `usage: ${command} [<board MCP URL>] [--rail ${MCP_RAILS.join("|")}] [--max-price <base units>] [--cap <base units>]

A local MCP server (stdio) for hosts that cannot pay: the board's tools, prompts and resources,
with each paid (*_live) tool call paid here over x402 from the configured wallet.

  <url>        the board's MCP endpoint (default BOARD_MCP_URL, else $BOARD_URL/mcp, else the development
               wallets' gateway's /mcp, else http://localhost:$PORT/mcp)
  --rail       the rail to pay on (default base)
  --max-price  the most one call may cost, USDC base units (default BOARD_MCP_MAX_PRICE, else 10000 = 0.01 USDC)
  --cap        daily spending cap, USDC base units (default BOARD_DAILY_CAP, else 1000000 = 1 USDC)

Wallets and receipts as board-buy's: BOARD_BUYER_EVM_KEY (base, batched), BOARD_BUYER_SOLANA_KEY
(with BOARD_SOLANA_RPC_URL), BOARD_BUYER_ALGORAND_MNEMONIC (with BOARD_ALGOD_URL), else the
development wallets ($DATA_DIR/dev-wallets.json); receipts appended to BOARD_RECEIPTS
($DATA_DIR/receipts.jsonl). BOARD_LICENSE_KEY is sent as X-License-Key (the licensed tools).`;

interface ProxyArgs {
  url: string | null;
  rail: Rail;
  maxPrice: string | null;
  cap: string | null;
}

class UsageError extends Error {}

function parseArgs(argv: readonly string[]): ProxyArgs | "help" {
  const args: ProxyArgs = { url: null, rail: "base", maxPrice: null, cap: null };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.startsWith("--") ? (argv[i]!.split(/=(.*)/s) as [string, string | undefined]) : [argv[i]!, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    const units = () => {
      const v = value();
      if (!/^\d+$/.test(v)) throw new UsageError(`${flag} takes whole USDC base units (10000 = 0.01 USDC)`);
      return v;
    };
    if (flag === "--help" || flag === "-h") return "help";
    else if (flag === "--rail") {
      const rail = value();
      if (!(MCP_RAILS as readonly string[]).includes(rail)) throw new UsageError(`rail ${rail} cannot pay over MCP: one of ${MCP_RAILS.join(", ")}`);
      args.rail = rail as Rail;
    } else if (flag === "--max-price") args.maxPrice = units();
    else if (flag === "--cap") args.cap = units();
    else if (flag.startsWith("-")) throw new UsageError(`unknown option ${flag}`);
    else if (args.url === null) args.url = flag;
    else throw new UsageError(`one board at a time (got ${args.url} and ${flag})`);
  }
  return args;
}

/** x402's v2 PaymentRequired, as a paid tool's unpaid call carries it in structuredContent. */
function paymentRequiredOf(result: CallToolResult): PaymentRequired | null {
  const s = result.structuredContent;
  if (!result.isError || !s || s["x402Version"] !== 2 || !Array.isArray(s["accepts"])) return null;
  return s as unknown as PaymentRequired;
}

/**
 * A refusal on this side: `{ error: { code, message, ... } }` as text only. Not structuredContent,
 * which a host checks against the tool's outputSchema even on an error, and whose error codes
 * are the board's own (price_above_limit is not one).
 */
function refused(error: ClientError & { max_price?: string }): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error }) }] };
}

const log = (text: string) => process.stderr.write(`board-mcp: ${text}\n`);

export interface McpProxyCommand {
  /** How the reader runs it, for the usage text. */
  command: string;
  /** What relative paths ($DATA_DIR, BOARD_RECEIPTS, BOARD_DEV_WALLETS) are relative to. */
  root: string;
  argv: readonly string[];
}

/** Runs until the host closes stdin or the board's session ends; exits 2 on a usage error, 1 when it cannot start. */
export async function runMcpProxy({ command, root, argv }: McpProxyCommand): Promise<void> {
  let args: ProxyArgs | "help";
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n\n${usage(command)}\n`);
    process.exit(2);
  }
  if (args === "help") {
    process.stderr.write(`${usage(command)}\n`);
    return;
  }
  try {
    await serve(args, root);
  } catch (err) {
    log(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}

async function serve(args: ProxyArgs, root: string): Promise<void> {
  const env = buyEnv();
  const dataDir = path.resolve(root, env.DATA_DIR);
  const walletsFile = path.resolve(root, env.BOARD_DEV_WALLETS ?? path.join(dataDir, "dev-wallets.json"));
  const { config, gateway } = railConfig(args.rail, env, walletsFile);
  const gatewayBase = env.BOARD_URL ?? gateway ?? `http://localhost:${env.PORT}`;
  const url = new URL(args.url ?? env.BOARD_MCP_URL ?? new URL("/mcp", gatewayBase).toString());
  const maxPrice = BigInt(args.maxPrice ?? env.BOARD_MCP_MAX_PRICE);
  const receiptsFile = path.resolve(root, env.BOARD_RECEIPTS ?? path.join(dataDir, "receipts.jsonl"));
  const receipts = new ReceiptLog(fileReceipts(receiptsFile));
  const cap = new SpendCap(BigInt(args.cap ?? env.BOARD_DAILY_CAP ?? DEFAULT_DAILY_CAP), receipts);
  const payer = await createPayer(config);
  if (!payer.signX402) throw new Error(`the ${payer.rail} payer cannot sign x402 offers`);

  const upstream = new Client({ name: "board-mcp", version: "1.1.0" });
  const headers: Record<string, string> = env.BOARD_LICENSE_KEY ? { "X-License-Key": env.BOARD_LICENSE_KEY } : {};
  await upstream.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  const remote = upstream.getServerCapabilities() ?? {};
  const capabilities: ServerCapabilities = {
    tools: {},
    ...(remote.prompts && { prompts: {} }),
    ...(remote.resources && { resources: { subscribe: remote.resources.subscribe ?? false } }),
  };
  const server = new Server(upstream.getServerVersion() ?? { name: "board", version: "0" }, {
    capabilities,
    ...(upstream.getInstructions() !== undefined && { instructions: upstream.getInstructions()! }),
  });

  // What the host lists is the board's own answer, untouched.
  server.setRequestHandler(ListToolsRequestSchema, (req) => upstream.request({ method: "tools/list", params: req.params }, ListToolsResultSchema));
  server.setRequestHandler(CallToolRequestSchema, (req) => callTool(req.params));
  if (remote.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (req) => upstream.request({ method: "prompts/list", params: req.params }, ListPromptsResultSchema));
    server.setRequestHandler(GetPromptRequestSchema, (req) => upstream.request({ method: "prompts/get", params: req.params }, GetPromptResultSchema));
  }
  if (remote.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (req) => upstream.request({ method: "resources/list", params: req.params }, ListResourcesResultSchema));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (req) => upstream.request({ method: "resources/templates/list", params: req.params }, ListResourceTemplatesResultSchema));
    server.setRequestHandler(ReadResourceRequestSchema, (req) => upstream.request({ method: "resources/read", params: req.params }, ReadResourceResultSchema));
    if (remote.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, (req) => upstream.request({ method: "resources/subscribe", params: req.params }, EmptyResultSchema));
      server.setRequestHandler(UnsubscribeRequestSchema, (req) => upstream.request({ method: "resources/unsubscribe", params: req.params }, EmptyResultSchema));
      upstream.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => server.sendResourceUpdated(n.params));
    }
  }

  const call = (params: CallToolRequest["params"]) => upstream.request({ method: "tools/call", params }, CallToolResultSchema) as Promise<CallToolResult>;

  async function callTool(params: CallToolRequest["params"]): Promise<CallToolResult> {
    // A host that pays for itself is left to it.
    if (params._meta?.[X402_MCP_PAYMENT_META] !== undefined) return call(params);
    const unpaid = await call(params);
    const required = paymentRequiredOf(unpaid);
    if (!required) return unpaid; // A free tool's answer, or a refusal that is not about payment.

    let hold: Hold | null = null;
    const approve = (quote: Quote): ClientError | null => {
      if (quote.amount > maxPrice)
        return {
          code: "price_above_limit",
          message: `${params.name} costs ${formatUsdc(quote.amount)} USDC a call, above this proxy's limit of ${formatUsdc(maxPrice)} USDC (--max-price, BOARD_MCP_MAX_PRICE); nothing was paid`,
          price: quote.amount.toString(),
        };
      const held = cap.hold(quote.amount);
      if ("code" in held) return held;
      hold = held;
      return null;
    };
    const signed = await payer.signX402!(required, approve);
    if (!signed.ok) {
      log(`${params.name}: not paid: ${signed.error.code}`);
      return refused(signed.error.code === "price_above_limit" ? { ...signed.error, max_price: maxPrice.toString() } : signed.error);
    }
    const held = hold as Hold | null;
    let paid: CallToolResult;
    try {
      paid = await call({ ...params, _meta: { ...params._meta, [X402_MCP_PAYMENT_META]: signed.payload } });
    } catch (err) {
      held?.keep(); // Sent, its outcome unknown: it stays counted for today.
      return refused({ code: "network_error", message: `the paid call of ${params.name} got no answer (${err instanceof Error ? err.message : String(err)}); it may have been charged` });
    }
    const settlement = paid._meta?.[X402_MCP_RESPONSE_META] as { success?: boolean; transaction?: string; network?: string; payer?: string } | undefined;
    if (!paid.isError && settlement?.success && settlement.transaction) {
      const resource = required.resource?.url ?? url.toString();
      const at = new URL(resource, url);
      try {
        receipts.add({
          rail: payer.rail,
          path: `${at.pathname}${at.search}`,
          url: at.toString(),
          price: signed.quote.amount.toString(),
          network: settlement.network ?? signed.quote.network,
          asset: signed.quote.asset,
          pay_to: signed.quote.pay_to,
          transaction: settlement.transaction,
          payer: settlement.payer ?? payer.address,
          at: new Date().toISOString(),
          header: "PAYMENT-RESPONSE",
          decoded: settlement as Record<string, unknown>,
          // The same PaymentPayload as HTTP's PAYMENT-SIGNATURE: BoardClient.replay can send it again.
          payment: { header: "PAYMENT-SIGNATURE", value: encodePaymentSignatureHeader(signed.payload) },
        });
      } catch (err) {
        log(`receipt not written to ${receiptsFile}: ${err instanceof Error ? err.message : String(err)}`); // Still counted by the cap, in memory.
      }
      log(`${params.name}: paid ${formatUsdc(signed.quote.amount)} USDC on ${signed.quote.network}, ${settlement.transaction}`);
    }
    held?.release(); // Paid (now a receipt) or refused by the board (nothing charged).
    return paid;
  }

  let ending = false;
  upstream.onclose = () => {
    if (ending) return;
    log(`the board closed the session (${url.toString()})`);
    process.exit(1);
  };
  // The host closes stdin to stop a stdio server (the SDK's transport does not watch for it).
  process.stdin.once("end", () => {
    ending = true;
    void upstream.close().finally(() => process.exit(0));
  });
  await server.connect(new StdioServerTransport());
  log(`serving ${url.toString()} over stdio; paying on ${payer.rail} as ${payer.address}, at most ${formatUsdc(maxPrice)} USDC a call and ${formatUsdc(cap.limit)} USDC a day`);
}
