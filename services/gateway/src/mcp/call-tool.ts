import {
  boardRead,
  paymentsRequirements,
  ROUTE_BY_PATH,
  toolView,
  X402_MCP_PAYMENT_META,
  type Delivery,
  type McpTool,
  type Principal,
  type Route,
  type Tier,
  type ViewName,
} from "@board/proto";
import { request, requestBytes } from "@board/service-kit";
import { ErrorCode as McpErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { addressBurstKey, consume, type BurstFailure } from "../access/meter.js";
import { resolveAccess } from "../access/principal.js";
import { purchaseRead } from "../access/purchase.js";
import { toolOutput } from "../discovery/tool-output.js";
import { deliveryOf, plainIfTooLarge, type BoardViewReply } from "../reads/board-view.js";
import { upstreamFailure } from "../http/errors.js";
import type { ReadDeps } from "../reads/read.js";
import { stringParams } from "../http/query-params.js";
import { errorResult, failureResult, paymentRequiredResult, readResult } from "./results.js";

/** What one MCP request brings besides the call: who is asking and the one credential MCP reads. */
export interface McpCaller {
  /** The client address, for the anonymous burst limit. */
  address: string;
  /** X-License-Key of the MCP request; bearers, free keys and sign-in are not read inside MCP (SPEC.md 5 rule 5). */
  licenseKey: string | undefined;
  /** /mcp/live: the live-feed license its bearer (a token for /mcp/live) resolved to before any message was read. */
  signedIn?: Principal;
}

/** A tool's read, checked: the tool, the route it sells (if any), the view, the board's params and the query string an offer is for. */
interface Order {
  tool: McpTool;
  route: Route | null;
  view: ViewName;
  params: Record<string, string>;
  query: string;
}

/**
 * tools/call of one of `tools` (the server's set). Bad arguments and every refusal are tool
 * errors (isError) an agent can read and act on; only an unknown tool is a protocol error, as
 * MCP specifies.
 */
export async function callTool(
  deps: ReadDeps,
  caller: McpCaller,
  tools: ReadonlyMap<string, McpTool>,
  name: string,
  args: unknown,
  meta: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const tool = tools.get(name);
  if (!tool) throw new McpError(McpErrorCode.InvalidParams, `There is no tool ${name}; tools/list names them.`);
  const checked = orderOf(tool, args);
  if (!checked.ok) return checked.result;
  const { order } = checked;
  try {
    switch (tool.access) {
      case "free":
        return await freeRead(deps, caller, order);
      case "live_license":
        return await licensedRead(deps, caller, order);
      case "x402":
        return await paidRead(deps, caller, order, meta?.[X402_MCP_PAYMENT_META]);
    }
  } catch (err) {
    // A bus failure mid-call: the same codes HTTP gives, never our internals.
    return failureResult(upstreamFailure(err));
  }
}

/** The arguments, checked by the tool's schema and then as the route's query, so messages match HTTP's. */
function orderOf(tool: McpTool, args: unknown): { ok: true; order: Order } | { ok: false; result: CallToolResult } {
  const input = tool.input.safeParse(args ?? {});
  if (!input.success) return { ok: false, result: invalidArgument(input.error.issues[0]) };
  const query = new URLSearchParams(Object.entries(input.data).filter((e): e is [string, string] => typeof e[1] === "string"));
  if ("view" in tool.source) return { ok: true, order: { tool, route: null, view: tool.source.view, params: {}, query: "" } };
  const route = ROUTE_BY_PATH.get(tool.source.route);
  if (!route) throw new Error(`tool ${tool.name} names a route the catalogue lacks`);
  const checked = route.query.safeParse(Object.fromEntries(query));
  if (!checked.success) return { ok: false, result: invalidArgument(checked.error.issues[0]) };
  // The view its outputSchema declares (never the route's free variant, which no tool's arguments select).
  const view = toolView(tool);
  if (!view) return { ok: false, result: errorResult("not_implemented", `${tool.name} is not served yet.`) };
  return { ok: true, order: { tool, route, view, params: stringParams(checked.data), query: query.toString() } };
}

function invalidArgument(issue: { path: PropertyKey[]; message: string } | undefined): CallToolResult {
  const param = String(issue?.path[0] ?? "arguments");
  return errorResult("invalid_query", `Argument '${param}': ${issue?.message ?? "invalid"}.`, { param });
}

/** A view's bytes; `again`: the board version and freshness a paid call bought before (a redelivery). */
const read = (deps: ReadDeps, order: Order, again?: Delivery): Promise<BoardViewReply> => {
  const ask = (encoding: "identity" | "gzip") =>
    requestBytes(
      deps.nc,
      boardRead,
      { view: order.view, params: order.params, encoding, ...(again && { snapshot: again.snapshot, freshness: again.freshness }) },
      { timeoutMs: deps.timeoutMs },
    );
  // A view too large for the bus as plain JSON crosses gzipped and is inflated here.
  return plainIfTooLarge(() => ask("identity"), () => ask("gzip"));
};

/** The delayed board and the free reads: anyone, within the client address's burst. */
async function freeRead(deps: ReadDeps, caller: McpCaller, order: Order): Promise<CallToolResult> {
  const limited = await anonymousBurst(deps, caller);
  if (limited) return limited;
  const reply = await read(deps, order);
  served(deps, order, "anonymous");
  return readResult(reply.body, toolOutput(order.tool).wrapped);
}

/** The live tier inside MCP: a live-feed license on X-License-Key, nothing else. */
async function licensedRead(deps: ReadDeps, caller: McpCaller, order: Order): Promise<CallToolResult> {
  if (!caller.licenseKey && !caller.signedIn)
    return errorResult("credential_required", "This tool is the live tier: connect with a live-feed license key in the X-License-Key header, or sign in at /mcp/live.");
  // A key to look up spends the client address's burst first (a signed-in caller's POST spent it already).
  if (!caller.signedIn) {
    const limited = await anonymousBurst(deps, caller, "closed");
    if (limited) return limited;
  }
  const access = caller.signedIn
    ? ({ kind: "principal", principal: caller.signedIn } as const)
    : await resolveAccess(deps.nc, deps.timeoutMs, { license_key: caller.licenseKey! }, deps.principals, "api", deps.refused);
  if (access.kind === "refused") return errorResult(access.code, access.message);
  const live = access.principal.tier === "live_license" || (access.principal.tier === "bearer" && access.principal.license_kind === "live_feed");
  if (!live)
    return errorResult("forbidden", "A scanner license is not valid inside MCP: use the *_live tools, paid per call, or a live-feed license.");
  const burst = await consume(deps.nc, deps.timeoutMs, deps.log, access.principal.id, "licensed");
  if (!burst.granted) return errorResult(burst.reason, "Too many calls at once. Pace calls sequentially.", { retry_after_seconds: burst.retry_after_seconds });
  const reply = await read(deps, order);
  served(deps, order, access.principal.tier);
  return readResult(reply.body, toolOutput(order.tool).wrapped);
}

/** A *_live tool: the requirements when unpaid; with _meta["x402/payment"], the purchase and its receipt. */
async function paidRead(deps: ReadDeps, caller: McpCaller, order: Order, payment: unknown): Promise<CallToolResult> {
  const route = order.route;
  if (!route) throw new Error("a paid tool without a route");
  if (payment === undefined) {
    const limited = await anonymousBurst(deps, caller);
    if (limited) return limited;
    return paymentRequired(deps, route, order, "payment_required", "Payment required: pay one of the offers and call again with _meta[\"x402/payment\"].");
  }
  // A payment spends the client address's burst before payments verifies or claims it, failing closed.
  const limited = await anonymousBurst(deps, caller, "closed");
  if (limited) return limited;
  if (typeof payment !== "object" || payment === null || Array.isArray(payment))
    return paymentRequired(deps, route, order, "payment_invalid_header", "_meta[\"x402/payment\"] must be an x402 PaymentPayload object.");

  const value = Buffer.from(JSON.stringify(payment)).toString("base64");
  const bought = await purchaseRead(deps, { route, query: order.query, params: order.params, payment: { carrier: "payment-signature", value } }, (again) => read(deps, order, again), deliveryOf);
  if (bought.kind === "failed") return failureResult(upstreamFailure(bought.error));
  if (bought.kind === "refused") {
    const result = await paymentRequired(deps, route, order, bought.code, `Payment refused: ${bought.code}.`);
    if (bought.code === "payment_settlement_failed" && result.structuredContent) {
      const accepted = (payment as { accepted?: { network?: unknown } }).accepted;
      result.structuredContent["x402/payment-response"] = { success: false, errorReason: bought.code, transaction: "", network: String(accepted?.network ?? "") };
    }
    return result;
  }
  // A redelivery (the same payment, called again) is not a new served read.
  if (bought.redelivered === undefined) served(deps, order, "x402");
  return readResult(bought.read.body, toolOutput(order.tool).wrapped, decodeHeader(bought.receipt.headers["PAYMENT-RESPONSE"]));
}

/**
 * The route's v2 PaymentRequired as payments builds it for HTTP, without the sign-in offer (MCP
 * reads no sign-in), and with the tool named so its bazaar declaration is the MCP tool's.
 */
async function paymentRequired(deps: ReadDeps, route: Route, order: Order, code: string, message: string): Promise<CallToolResult> {
  const reply = await request(deps.nc, paymentsRequirements, { path: route.path, query: order.query, error: code, tool: order.tool.name }, { timeoutMs: deps.timeoutMs });
  const required = decodeHeader(reply.headers["PAYMENT-REQUIRED"]);
  if (!required || typeof required !== "object") throw new Error("payments answered a 402 without PAYMENT-REQUIRED");
  const pr = required as Record<string, unknown> & { extensions?: Record<string, unknown> };
  if (pr.extensions) {
    delete pr.extensions["sign-in-with-x"];
    if (Object.keys(pr.extensions).length === 0) delete pr.extensions;
  }
  return paymentRequiredResult(pr, message);
}

function decodeHeader(value: string | undefined): unknown {
  return value === undefined ? undefined : JSON.parse(Buffer.from(value, "base64").toString("utf8"));
}

/** The client address's burst, as HTTP's anonymous reads spend it; a tool error when it is spent. */
async function anonymousBurst(deps: ReadDeps, caller: McpCaller, failure: BurstFailure = "open"): Promise<CallToolResult | null> {
  const burst = await consume(deps.nc, deps.timeoutMs, deps.log, addressBurstKey(caller.address), "anonymous", failure);
  if (burst.granted) return null;
  return errorResult(burst.reason, "Too many calls at once. Pace calls sequentially and retry after the given seconds.", {
    retry_after_seconds: burst.retry_after_seconds,
  });
}

/** Reads served count per route; the delayed board has none, so it counts under /mcp. */
const served = (deps: ReadDeps, order: Order, tier: Tier) => deps.served(order.route?.path ?? "/mcp", tier);
