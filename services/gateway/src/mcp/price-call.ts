import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PriceToolInput, pricesOf } from "../discovery/price-tool.js";
import { errorResult } from "./results.js";

/**
 * tools/call of get_price: the price catalogue, answered here without a board read or a
 * meter (it says what tools/list's entries say). Bad arguments are tool errors with the HTTP
 * reason code, as every tool's.
 */
export function callPriceTool(args: unknown): CallToolResult {
  const input = PriceToolInput.safeParse(args ?? {});
  if (!input.success) return errorResult("invalid_query", `Argument 'tool': ${input.error.issues[0]?.message ?? "invalid"}.`, { param: "tool" });
  const prices = pricesOf(input.data.tool);
  if (!prices) return errorResult("invalid_query", `Argument 'tool': there is no tool ${input.data.tool}; tools/list names them.`, { param: "tool" });
  return { content: [{ type: "text", text: JSON.stringify(prices) }], structuredContent: prices };
}
