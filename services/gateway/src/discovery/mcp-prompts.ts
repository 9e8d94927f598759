import { MCP_TOOL_BY_NAME, RegimeVerdictCode, toolView } from "@board/proto";
import { ErrorCode as McpErrorCode, McpError, type GetPromptResult, type Prompt } from "@modelcontextprotocol/sdk/types.js";
import { PRICE_TOOL_NAME } from "./price-tool.js";
import { priceSentence } from "./tool-prices.js";

/**
 * The board's intended use, as MCP prompts a host offers its user (prompts/list, prompts/get):
 * poll the free state hashes and buy only on a change; read the regime verdict before the buy
 * list; ask the price before paying. Each is a user message for the model, naming the tools
 * and the fields it should read.
 */
interface BoardPrompt {
  prompt: Prompt;
  messages(args: Record<string, string>): string;
}

const BOOKS = ["spx", "qqq", "macro", "crypto"] as const;
const DEFAULT_LIVE_TOOL = "get_board_live";

/** A paid tool named by a prompt argument, or a prompt error (InvalidParams) that names the choices. */
function paidTool(name: string) {
  const tool = MCP_TOOL_BY_NAME.get(name);
  if (!tool || tool.access !== "x402") throw new McpError(McpErrorCode.InvalidParams, `Argument 'tool': ${name} is not a paid *_live tool; tools/list names them.`);
  return tool;
}

const PROMPTS: readonly BoardPrompt[] = [
  {
    prompt: {
      name: "buy_on_change",
      title: "Buy only when the board changed",
      description: "Poll the free state hashes and call a paid *_live tool only when its view's hash changed since the last read.",
      arguments: [
        { name: "tool", description: `The paid tool to keep current (${DEFAULT_LIVE_TOOL} when omitted).`, required: false },
        { name: "last_hash", description: "The view's hash at your last paid read, if you kept it.", required: false },
      ],
    },
    messages(args) {
      const tool = paidTool(args.tool || DEFAULT_LIVE_TOOL);
      const view = toolView(tool);
      const cost = priceSentence(tool) ?? "";
      const last = args.last_hash ? `Your last paid read was at hash ${args.last_hash}.` : "If you kept no hash from a previous read, this first read is a change.";
      return [
        `Keep ${tool.name} current without paying for reads that repeat. ${cost}`,
        `1. Call get_board_state (free). Read views["${view}"] (the content hash of the view ${tool.name} serves); when that key is absent, read snapshot.`,
        `2. ${last} If the hash equals it, the board has not changed: do not call ${tool.name}; use what you already have, and poll get_board_state again later (the board is refreshed every 5 to 9 minutes in market hours).`,
        `3. Only when the hash differs, call ${tool.name} (pay as its requirements say), and keep the new hash for the next comparison.`,
        "Research, not investment advice.",
      ].join("\n");
    },
  },
  {
    prompt: {
      name: "regime_before_buylist",
      title: "Read the regime before the buy list",
      description: "Read each book's regime verdict first; read the buy list only for a book whose verdict lets names be bought.",
      arguments: [{ name: "book", description: `One book (${BOOKS.join(", ")}); every book when omitted.`, required: false }],
    },
    messages(args) {
      const book = args.book?.trim().toLowerCase();
      if (book && !(BOOKS as readonly string[]).includes(book)) throw new McpError(McpErrorCode.InvalidParams, `Argument 'book': one of ${BOOKS.join(", ")}.`);
      const which = book ? `the ${book} book` : "each book";
      return [
        `Decide from the top down (index, then sector, then name) for ${which}.`,
        `1. Check get_board_state (free) first, and skip a paid read whose hash has not changed since you last bought it.`,
        `2. Call get_regime_live (${priceSentence(paidTool("get_regime_live")) ?? ""}). For ${which}, read verdict (one of ${RegimeVerdictCode.options.join(", ")}), stance (risk-on, be-selective, stand-down) and the permission ladder.`,
        '3. If ladder.names is "none" (the stance is stand-down or names are not permitted), do not buy the buy list for that book: report the verdict and its line instead.',
        '4. Otherwise call get_buylist_live and keep only what the ladder permits: with "leaders_in_top_sectors", leaders in ladder.sectors; with "green_sectors", names in the green sectors.',
        "Research, not investment advice.",
      ].join("\n");
    },
  },
  {
    prompt: {
      name: "check_price_first",
      title: "Check the price before paying",
      description: "Ask get_price what a paid tool costs, say it to the user, and pay only with their consent.",
      arguments: [{ name: "tool", description: "The paid tool you mean to call.", required: true }],
    },
    messages(args) {
      const tool = paidTool(args.tool ?? "");
      return [
        `Before calling ${tool.name}, learn its cost without spending anything.`,
        `1. Call ${PRICE_TOOL_NAME} with {"tool": "${tool.name}"} (free): amount (USDC base units), usd, and the rails it can be paid on.`,
        `2. Tell the user the cost per call and ask before paying. Calling ${tool.name} without payment is free too: it answers with the x402 requirements, the exact offers in force.`,
        `3. With consent, sign one offer and call ${tool.name} again with the payment in _meta["x402/payment"]; the receipt comes back in the result's _meta["x402/payment-response"].`,
      ].join("\n");
    },
  },
];

const BY_NAME = new Map(PROMPTS.map((p) => [p.prompt.name, p]));

/** The prompts capability: the list is fixed. */
export const PROMPTS_CAPABILITY = { listChanged: false } as const;

/** prompts/list. */
export const LISTED_PROMPTS: readonly Prompt[] = PROMPTS.map((p) => p.prompt);

/** prompts/get: the prompt's user message with its arguments filled in; an unknown prompt or a bad argument is InvalidParams, as MCP specifies. */
export function getPrompt(name: string, args: Record<string, string> | undefined): GetPromptResult {
  const entry = BY_NAME.get(name);
  if (!entry) throw new McpError(McpErrorCode.InvalidParams, `There is no prompt ${name}; prompts/list names them.`);
  for (const arg of entry.prompt.arguments ?? [])
    if (arg.required && !args?.[arg.name]) throw new McpError(McpErrorCode.InvalidParams, `Argument '${arg.name}' is required.`);
  return {
    description: entry.prompt.description,
    messages: [{ role: "user", content: { type: "text", text: entry.messages(args ?? {}) } }],
  };
}
