import { ROUTE_BY_PATH, type McpTool, type McpToolAccess } from "@board/proto";
import { RAILS } from "./offers.js";
import { usdc } from "./terms.js";

/** One rail a paid tool can be bought on, as the x402 requirements of its call offer it when configured. */
export interface ToolRail {
  rail: string;
  scheme: string;
  /** CAIP-2. */
  network: string;
  asset: string;
}

/**
 * What one call of a tool costs: the route's price, the one number payments' 402s are built
 * from, and the x402 rails (discovery's terms of each offer). `amount` null: the tool is free
 * or opened by a license, never charged per call.
 */
export interface ToolPrice {
  tool: string;
  access: McpToolAccess;
  /** USDC base units (6 decimals), as the requirements' `amount`. */
  amount: string | null;
  asset: "USDC";
  decimals: 6;
  /** The amount in dollars, for people: "0.005". */
  usd: string | null;
  rails: ToolRail[];
}

/** The x402 rails of a paid call (MPP is an HTTP challenge: MCP carries x402 payments only). */
const X402_RAILS: readonly ToolRail[] = RAILS.map(({ rail, scheme, network, asset }) => ({ rail, scheme, network, asset }));

/** Circle's batched rail is named as buyers name it. */
const RAIL_WORDS: Readonly<Record<string, string>> = { base: "Base", solana: "Solana", algorand: "Algorand", circle_batched: "Circle's batched Base rail" };

/** The price of a paid tool's read, in USDC base units; null for free and licensed tools. */
export function priceOf(tool: McpTool): bigint | null {
  if (tool.access !== "x402" || !("route" in tool.source)) return null;
  return ROUTE_BY_PATH.get(tool.source.route)?.price ?? null;
}

export function toolPrice(tool: McpTool): ToolPrice {
  const amount = priceOf(tool);
  return {
    tool: tool.name,
    access: tool.access,
    amount: amount === null ? null : amount.toString(),
    asset: "USDC",
    decimals: 6,
    usd: amount === null ? null : usdc(amount),
    rails: amount === null ? [] : X402_RAILS.map((r) => ({ ...r })),
  };
}

/** The sentence a paid tool's description ends with: what one call costs and on which rails. */
export function priceSentence(tool: McpTool): string | null {
  const amount = priceOf(tool);
  if (amount === null) return null;
  const rails = X402_RAILS.map((r) => RAIL_WORDS[r.rail] ?? r.rail).join(", ");
  return (
    `Costs ${usdc(amount)} USDC (${amount} base units) per call, paid over x402 on ${rails}: each rail when the service offers it, ` +
    `the call's requirements list those in force. get_price tells the cost for free.`
  );
}
