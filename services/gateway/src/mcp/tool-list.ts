import { MCP_TOOLS, ROUTE_BY_PATH, type McpTool } from "@board/proto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** The price of a paid tool's read, in USDC base units; null for free and licensed tools. */
export function priceOf(tool: McpTool): bigint | null {
  if (tool.access !== "x402" || !("route" in tool.source)) return null;
  return ROUTE_BY_PATH.get(tool.source.route)?.price ?? null;
}

/** tools/list, computed once: JSON Schemas of the zod inputs, read-only hints, and each paid tool's price. */
export const LISTED_TOOLS: readonly Tool[] = MCP_TOOLS.map((tool) => {
  const price = priceOf(tool);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { io: "input" }) as Tool["inputSchema"],
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    _meta: {
      "board/access": tool.access,
      ...(price !== null ? { "board/price": { amount: String(price), asset: "USDC", decimals: 6 } } : {}),
    },
  };
});
