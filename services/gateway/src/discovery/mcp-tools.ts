import { MCP_TOOLS, type McpTool } from "@board/proto";
import type { Tool, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { PRICE_TOOL } from "./price-tool.js";
import { toolOutput } from "./tool-output.js";
import { priceOf, priceSentence } from "./tool-prices.js";

export { priceOf } from "./tool-prices.js";

/**
 * MCP's ToolAnnotations describe the tool's effect on its environment. A free or licensed read
 * changes nothing. A paid call, once the host pays, moves the caller's money and settles on a
 * public chain: not read-only, not idempotent (each payment is spent once; a new one buys the
 * read again), open-world; not destructive (a transfer adds, it deletes nothing).
 */
function annotationsOf(tool: McpTool): ToolAnnotations {
  if (tool.access === "x402") return { title: tool.title, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
  return { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
}

/** A tool as tools/list lists it: JSON Schemas of its zod input and of its output, its hints, and a paid tool's price (in its description too). */
function listed(tool: McpTool): Tool {
  const price = priceOf(tool);
  const cost = priceSentence(tool);
  return {
    name: tool.name,
    title: tool.title,
    description: cost ? `${tool.description} ${cost}` : tool.description,
    inputSchema: z.toJSONSchema(tool.input, { io: "input" }) as Tool["inputSchema"],
    outputSchema: toolOutput(tool).schema,
    annotations: annotationsOf(tool),
    _meta: {
      "board/access": tool.access,
      ...(price !== null ? { "board/price": { amount: String(price), asset: "USDC", decimals: 6 } } : {}),
    },
  };
}

const entries = new WeakMap<McpTool, Tool>();

/** tools/list's entry of a tool, written once per tool (a server of any tool set lists the same entry). */
export function listedTool(tool: McpTool): Tool {
  let entry = entries.get(tool);
  if (!entry) entries.set(tool, (entry = listed(tool)));
  return entry;
}

/** Every catalogue tool of /mcp as tools/list lists it. */
export const LISTED_TOOLS: readonly Tool[] = MCP_TOOLS.map(listedTool);

/** What /mcp's tools/list answers and the server card shows: the catalogue's tools, then get_price (a server that sells per call tells its prices for free). */
export const MCP_LISTED_TOOLS: readonly Tool[] = [...LISTED_TOOLS, PRICE_TOOL];
