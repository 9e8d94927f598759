import { MCP_TOOLS, ROUTE_BY_PATH, type McpTool } from "@board/proto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { toolOutput } from "./tool-output.js";

/** The price of a paid tool's read, in USDC base units; null for free and licensed tools. */
export function priceOf(tool: McpTool): bigint | null {
  if (tool.access !== "x402" || !("route" in tool.source)) return null;
  return ROUTE_BY_PATH.get(tool.source.route)?.price ?? null;
}

/** A tool as tools/list lists it: JSON Schemas of its zod input and of its output, read-only hints, and a paid tool's price. */
function listed(tool: McpTool): Tool {
  const price = priceOf(tool);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { io: "input" }) as Tool["inputSchema"],
    outputSchema: toolOutput(tool).schema,
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
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

/** Every tool of /mcp as tools/list lists it: what the server card shows too. */
export const LISTED_TOOLS: readonly Tool[] = MCP_TOOLS.map(listedTool);
