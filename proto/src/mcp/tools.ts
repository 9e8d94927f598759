import { z } from "zod";
import { ROUTE_BY_PATH } from "../routes/catalogue.js";
import { MAX_BATCH } from "../routes/query.js";
import type { ViewName } from "../records/views.js";

/**
 * Who may call a tool (SPEC.md 5 rule 5): anyone; anyone who pays per call over x402 (the
 * scanner tier inside MCP); or a live-feed license on X-License-Key. MCP reads no bearer
 * token and no scanner key.
 */
export const McpToolAccess = z.enum(["free", "x402", "live_license"]);
export type McpToolAccess = z.infer<typeof McpToolAccess>;

/** What a tool serves: an HTTP route's read (its price, query checks and view), or a view no route serves. */
export type McpToolSource = { readonly route: string } | { readonly view: ViewName };

export interface McpTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly access: McpToolAccess;
  readonly source: McpToolSource;
  /** The tool's JSON arguments; they are checked again as the route's query, so errors match HTTP's. */
  readonly input: z.ZodObject;
}

const NO_ARGS = z.object({});
const SYMS = z.object({
  sym: z
    .string()
    .min(1)
    .max(200)
    .describe(`One ticker, or up to ${MAX_BATCH} comma-separated (AAPL,MSFT). Unknown symbols are answered with the symbol directory.`),
});
const SECTOR = z.object({
  name: z.string().min(1).max(64).optional().describe("A sector label, case-insensitive (one of the 20 in get_symbols)."),
  etf: z.string().min(1).max(64).optional().describe("Or the sector's ETF symbol."),
});

const DAYS = z.string().regex(/^\d{1,3}$/).optional().describe("How many sessions back, 1 to 250.");
const DATED = z.object({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe("The session, YYYY-MM-DD.") });
const VERDICT_LOG = z.object({ book: z.enum(["spx", "qqq", "macro", "crypto"]).optional().describe("One book; every book when omitted."), days: DAYS });
const NAME_HISTORY = z.object({ sym: SYMS.shape.sym.describe(`One ticker, or up to ${MAX_BATCH} comma-separated.`), days: DAYS });
const SINCE = z.object({ since: z.string().regex(/^[0-9a-f]{64}$/).describe("A committed board's content hash (the event feed and receipts name it).") });

const free = (name: string, title: string, description: string, source: McpToolSource): McpTool => ({
  name,
  title,
  description,
  access: "free",
  source,
  input: NO_ARGS,
});

const live = (route: string, title: string, description: string, input: z.ZodObject = NO_ARGS): McpTool => ({
  // /api/board/agent is the full board: get_board_live; the others take their path's words.
  name: `get_${route === "/api/board/agent" ? "board" : route.replace(/^\/api\/board\//, "").replace(/[/-]/g, "_")}_live`,
  title,
  description: `${description} Live, paid per call over x402: call without payment to get the requirements, then again with _meta["x402/payment"].`,
  access: "x402",
  source: { route },
  input,
});

const licensed = (name: string, route: string, title: string, description: string, input: z.ZodObject = NO_ARGS): McpTool => ({
  name,
  title,
  description: `${description} Needs a live-feed license key in the X-License-Key header of the MCP connection.`,
  access: "live_license",
  source: { route },
  input,
});

/** Every tool the MCP server at /mcp lists: the one source for the server, its card and the documents. */
export const MCP_TOOLS: readonly McpTool[] = [
  free("get_delayed_board", "Delayed full board", "The whole board (every name, every book's regime verdict, cards and lanes), one trading day delayed. Free.", {
    view: "delayed",
  }),
  free("get_free_board", "Free slice", "The previous trading day's top 3 names per book with regime lines. Free.", { route: "/api/board/free" }),
  free("get_symbols", "Symbol directory", "Every symbol the board scores, its sector and books. Free.", { route: "/api/board/symbols" }),
  free("get_status", "Service status", "Data freshness, reads served, last settlement, performance, and whether payments are development (no real money) with each rail live, down or off. Free.", { route: "/api/board/status" }),
  free("get_board_state", "Change detection", "A content hash per read: poll this and buy only when a hash changes. Free.", { route: "/api/board/state" }),

  live("/api/board/agent", "Full board, live", "The full live board: every name, every book's regime verdict, cards and lanes."),
  live("/api/board/regime", "Regime, live", "Regime verdict per book plus the permission ladder."),
  live("/api/board/buylist", "Buy list, live", "Ranked candidates per book across both lanes, with entry windows and leadership flags."),
  live("/api/board/indices", "Indices, live", "Scored index row per book and each book's regime verdict."),
  live("/api/board/sectors", "Sectors, live", "Every sector ETF scored, and which sectors each book's regime calls green."),
  live("/api/board/top-volume", "Top volume, live", "Top names by 20-day average dollar volume in every sector, each scored."),
  live("/api/board/name", "Name read, live", "The full score read of one to ten symbols, at the single-name price.", SYMS),
  live("/api/board/leaders", "Leaders, live", "Top 10 leadership names per book by opportunity score."),
  live("/api/board/movers", "Movers, live", "Top 10 gainers and 10 losers by day percent change, each scored."),
  live("/api/board/sector", "Sector, live", "Every member of one sector, ranked, plus the sector ETF row. No argument or an unknown one returns the sector directory.", SECTOR),
  live("/api/board/crypto", "Crypto gate, live", "Trend on/off per crypto asset on the UTC daily close."),
  live("/api/board/crypto/night", "Crypto overnight, live", "What BTC and ETH did since the last US close."),
  live("/api/board/tradfi-risk", "Tradfi risk, live", "The macro book's risk read: bonds, credit, gold and its verdict."),
  live("/api/board/hold", "Hold strength, live", "Hold strength and label for one to ten symbols.", SYMS),
  live("/api/board/asof", "Dated board", "The last committed board of a session, with its proof commitment (verify it with npm run verify-proof).", DATED),
  live("/api/board/regime/history", "Verdict log", "Each regime verdict change of a book (or every book) over up to 250 sessions, with the breadth and index figures that decided it.", VERDICT_LOG),
  live("/api/board/name/history", "Name history", "Per session, for up to 10 names and up to 250 sessions: state, light, trigger, opportunity, entry and hold, price.", NAME_HISTORY),
  live("/api/board/changes", "Changes since a board", "What changed from a committed board (its content hash) to the current one: verdicts, lane entries and exits, state transitions, names newly firing.", SINCE),

  licensed("get_engine_feed", "/api/live/feed", "Engine feed", "The engine-grade feed: structural stops, targets, conviction, lanes and the served candidates."),
  licensed("get_live_rules", "/api/live/rules", "Rules of engagement", "The published rules of engagement the engine trades by."),
  licensed(
    "get_live_setup",
    "/api/live/setup",
    "Setups",
    "Per name, the full setup: entry window, structural stop, targets, conviction, lanes. Without sym, every name.",
    z.object({ sym: SYMS.shape.sym.optional() }),
  ),
];

export const MCP_TOOL_BY_NAME: ReadonlyMap<string, McpTool> = new Map(MCP_TOOLS.map((t) => [t.name, t]));

/**
 * The view a tool answers with: its own, or its route's. A tool's arguments never select the
 * route's free variant (its input has no such parameter), so this is the one view it serves;
 * null for a route whose read is not served yet.
 */
export function toolView(tool: McpTool): ViewName | null {
  if ("view" in tool.source) return tool.source.view;
  const route = ROUTE_BY_PATH.get(tool.source.route);
  if (!route) throw new Error(`tool ${tool.name} names a route the catalogue lacks`);
  return route.view;
}

/** The MCP metadata keys of x402's MCP transport (specs/transports-v2/mcp.md). */
export const X402_MCP_PAYMENT_META = "x402/payment";
export const X402_MCP_RESPONSE_META = "x402/payment-response";
