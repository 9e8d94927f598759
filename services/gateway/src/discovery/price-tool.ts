import { MCP_TOOL_BY_NAME, MCP_TOOLS, McpToolAccess } from "@board/proto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { outputFor } from "./tool-output.js";
import { toolPrice } from "./tool-prices.js";

export const PRICE_TOOL_NAME = "get_price";

export const PriceToolInput = z.object({
  tool: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe("A tool's name (get_regime_live, ...); every tool when omitted."),
});

/** One tool's cost: what get_price answers per tool. */
const ToolPriceEntry = z.object({
  tool: z.string(),
  access: McpToolAccess,
  amount: z.string().regex(/^\d+$/).nullable().describe("USDC base units (6 decimals) per call; null: free, or opened by a live-feed license."),
  asset: z.literal("USDC"),
  decimals: z.literal(6),
  usd: z.string().nullable(),
  rails: z.array(z.object({ rail: z.string(), scheme: z.string(), network: z.string(), asset: z.string() })),
});

export const PriceToolOutput = z.object({
  prices: z.array(ToolPriceEntry),
  note: z.string(),
});
export type PriceToolOutput = z.infer<typeof PriceToolOutput>;

const NOTE =
  "x402 tools: call without payment for the requirements (the rails in force, the exact amount), sign one offer, call again with the payment in _meta[\"x402/payment\"]. " +
  "live_license tools: a live-feed license on X-License-Key, nothing per call. free tools: nothing.";

/** get_price as tools/list lists it: free, read-only, answered from the price catalogue without a board read. */
export const PRICE_TOOL: Tool = {
  name: PRICE_TOOL_NAME,
  title: "Prices",
  description:
    "What one call of each tool costs, free: the price in USDC (base units and dollars) and the x402 rails of every *_live tool; free and licensed tools cost nothing per call. " +
    "Ask before buying, or give tool to ask about one.",
  inputSchema: z.toJSONSchema(PriceToolInput, { io: "input" }) as Tool["inputSchema"],
  // With the API's error body, as every tool's: the SDK client checks a refusal's structuredContent too.
  outputSchema: outputFor(PriceToolOutput, "free").schema,
  annotations: { title: "Prices", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  _meta: { "board/access": "free" },
};

/** get_price's answer for `tool` (every tool when undefined); null: no such tool. */
export function pricesOf(tool: string | undefined): PriceToolOutput | null {
  const one = tool === undefined ? undefined : MCP_TOOL_BY_NAME.get(tool);
  if (tool !== undefined && !one) return null;
  return { prices: (one ? [one] : MCP_TOOLS).map(toolPrice), note: NOTE };
}
