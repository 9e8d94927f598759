import { z } from "zod";
import { MCP_LIVE_PATH } from "../bus/oauth.js";
import { PAYMENT_ID_PATTERN } from "../bus/payments.js";
import type { ViewName } from "../records/views.js";
import type { RouteDeprecation } from "./deprecation.js";
import {
  BoardHashParam,
  BookParam,
  DateParam,
  DaysParam,
  PreviewParam,
  SampleParam,
  SectorNameParam,
  SeqParam,
  SignInAddressParam,
  SignInChainParam,
  Single,
  SymList,
} from "./query.js";

/** The API version the machine-readable descriptions declare (SPEC.md 9); paths carry none. */
export const API_VERSION = "1.1.0";

/** Access tiers of SPEC.md section 5. */
export const Tier = z.enum(["anonymous", "free_key", "wallet", "x402", "scanner_license", "live_license", "bearer"]);
export type Tier = z.infer<typeof Tier>;

export const RouteKind = z.enum(["paid", "free", "live", "discovery", "auth", "mcp", "page"]);
export type RouteKind = z.infer<typeof RouteKind>;

export type HttpMethod = "GET" | "HEAD" | "POST" | "DELETE";

export interface Route {
  readonly path: string;
  readonly methods: readonly HttpMethod[];
  readonly kind: RouteKind;
  /** Price per read in USDC base units; null where the route is not sold per read. */
  readonly price: bigint | null;
  /** Who may read it. Anyone may still pay for a paid route. */
  readonly tiers: readonly Tier[];
  readonly query: z.ZodObject;
  /** The board view the route serves; null for routes answered by another service. */
  readonly view: ViewName | null;
  /** A query that turns a paid route into a free read (agent?preview=1). */
  readonly freeVariant?: { readonly param: string; readonly value: string; readonly view: ViewName };
  readonly summary: string;
  /** Set once the route is deprecated: its answers carry Deprecation, Sunset and Link (docs/versioning.md). */
  readonly deprecation?: RouteDeprecation;
}

const NONE = z.object({});
const PAID_TIERS = ["x402", "scanner_license", "live_license", "bearer"] as const satisfies readonly Tier[];
const FREE_TIER_PAID = [...PAID_TIERS, "free_key", "wallet"] as const satisfies readonly Tier[];
const EVERYONE = Tier.options;
const LIVE_TIERS = ["live_license", "bearer"] as const satisfies readonly Tier[];

const paid = (
  path: string,
  price: number,
  view: ViewName,
  summary: string,
  opts: { query?: z.ZodObject; freeTier?: boolean } = {},
): Route => ({
  path,
  methods: ["GET"],
  kind: "paid",
  price: BigInt(price),
  tiers: opts.freeTier ? FREE_TIER_PAID : PAID_TIERS,
  query: opts.query ?? NONE,
  view,
  summary,
});

const free = (path: string, view: ViewName | null, summary: string, query: z.ZodObject = NONE): Route => ({
  path,
  methods: ["GET"],
  kind: "free",
  price: null,
  tiers: EVERYONE,
  query,
  view,
  summary,
});

const other = (
  path: string,
  kind: RouteKind,
  methods: readonly HttpMethod[],
  summary: string,
  tiers: readonly Tier[] = EVERYONE,
): Route => ({ path, methods, kind, price: null, tiers, query: NONE, view: null, summary });

/** Where an x402 bazaar client lists resources (`${facilitator}/discovery/resources`): served here for our own. */
export const X402_DISCOVERY_RESOURCES_PATH = "/discovery/resources";

/** The bazaar list's filters and page, as @x402/extensions' client sends them; other parameters it may send are ignored. */
export const DiscoveryResourcesQuery = z.object({
  type: Single.pipe(z.string().max(32)).optional().describe("Only resources of this protocol type (every one here is http)."),
  network: Single.pipe(z.string().max(128)).optional().describe("Only resources with an offer on this CAIP-2 network."),
  scheme: Single.pipe(z.string().max(32)).optional().describe("Only resources with an offer of this x402 scheme (exact)."),
  payTo: Single.pipe(z.string().max(128)).optional().describe("Only resources with an offer paying this address."),
  limit: Single.pipe(z.string().regex(/^\d{1,3}$/, "1 to 100").transform(Number).pipe(z.number().int().min(1, "at least 1").max(100, "at most 100")))
    .optional()
    .describe("At most this many resources (1 to 100; 100 when absent)."),
  offset: Single.pipe(z.string().regex(/^\d{1,9}$/, "a whole number from 0").transform(Number).pipe(z.number().int().min(0))).optional().describe("Skip this many resources first."),
});
export type DiscoveryResourcesQuery = z.infer<typeof DiscoveryResourcesQuery>;

/** The push feed of published boards (text/event-stream), answered by the gateway itself. */
export const BOARD_EVENTS_PATH = "/api/board/events";

/** A paid read's receipt asked after the read (by its payment, or its payment-identifier id and payer), answered by payments. */
export const RECEIPT_PATH = "/api/receipt";

/** Every path of SPEC.md section 4 plus the four reads of DECISIONS.md: the one source for routing, pricing and OpenAPI. */
export const ROUTES: readonly Route[] = [
  {
    ...paid("/api/board/agent", 250000, "agent", "The full board: every name, every book's regime verdict, cards and lanes.", {
      query: z.object({ preview: PreviewParam.optional() }),
    }),
    freeVariant: { param: "preview", value: "1", view: "preview" },
  },
  paid("/api/board/regime", 5000, "regime", "Regime verdict per book plus the permission ladder.", { freeTier: true }),
  paid("/api/board/buylist", 20000, "buylist", "Ranked candidates per book across both lanes, with entry windows and leadership flags."),
  paid("/api/board/indices", 5000, "indices", "Scored index row per book and each book's regime verdict.", { freeTier: true }),
  paid("/api/board/sectors", 10000, "sectors", "Every sector ETF scored, and which sectors each book's regime calls green."),
  paid("/api/board/top-volume", 20000, "top-volume", "Top names by 20-day average dollar volume in every sector, each scored."),
  paid("/api/board/name", 5000, "name", "The full score read of one to ten symbols.", { query: z.object({ sym: SymList }) }),
  paid("/api/board/leaders", 10000, "leaders", "Top 10 leadership names per book by opportunity score."),
  paid("/api/board/movers", 5000, "movers", "Top 10 gainers and 10 losers by day percent change, each scored.", { freeTier: true }),
  paid("/api/board/sector", 10000, "sector", "Every member of one sector, ranked, plus the sector ETF row.", {
    query: z.object({ name: SectorNameParam.optional(), etf: SectorNameParam.optional() }),
  }),
  paid("/api/board/crypto", 5000, "crypto", "The crypto gate: trend on/off per asset on the UTC daily close.", { freeTier: true }),
  paid("/api/board/crypto/night", 5000, "crypto-night", "What BTC and ETH did since the last US close.", { freeTier: true }),
  paid("/api/board/tradfi-risk", 5000, "tradfi-risk", "The macro book's risk read: bonds, credit, gold and its verdict.", {
    freeTier: true,
  }),
  paid("/api/board/hold", 5000, "hold", "Hold strength and label for one to ten symbols.", {
    query: z.object({ sym: SymList }),
    freeTier: true,
  }),
  {
    ...paid("/api/board/asof", 50000, "asof", "The last committed board of a session, with its proof commitment; ?sample=1: one committed sample day, free.", {
      query: z
        .object({ date: DateParam.optional(), sample: SampleParam.optional() })
        .refine((q) => (q.date === undefined) !== (q.sample === undefined), { message: "give date=YYYY-MM-DD (paid) or sample=1 (free), one of the two", path: ["date"] }),
    }),
    freeVariant: { param: "sample", value: "1", view: "asof-sample" },
  },
  paid("/api/board/regime/history", 5000, "regime-history", "Each regime verdict change of a book (or every book) over up to 250 sessions, with the figures that decided it.", {
    query: z.object({ book: BookParam.optional(), days: DaysParam.optional() }),
  }),
  paid("/api/board/name/history", 10000, "name-history", "Per session, for up to 10 names and 250 sessions: state, light, trigger, scores, hold and price.", {
    query: z.object({ sym: SymList, days: DaysParam.optional() }),
  }),
  paid("/api/board/changes", 5000, "changes", "What changed from a committed board to the current one: verdicts, lane entries and exits, state transitions, names newly firing.", {
    query: z.object({ since: BoardHashParam }),
  }),

  free("/api/board/free", "free", "The previous trading day's top 3 names per book with regime lines."),
  free("/api/board/status", "status", "Service status: data freshness, reads served, last settlement, performance; payments mode (development: no real money) and each rail live, down or off."),
  free("/api/board/symbols", "symbols", "The symbol directory."),
  free("/api/board/state", "state", "A content hash per view: poll this and buy only on change."),
  free("/api/board/signal-audit", "signal-audit", "Forward-return audit of past committed scores."),
  free(
    "/api/board/proof",
    "proof",
    "Append-only sha256 pre-commitments of every published board: the newest 500; ?before=<seq>: the 500 below that seq, to page back through the chain.",
    z.object({ before: SeqParam.optional() }),
  ),
  free("/api/perf", "perf", "Engine versus benchmark performance, percentages only."),
  free(
    BOARD_EVENTS_PATH,
    null,
    "Server-Sent Events: one event per published board (its /api/board/state hashes, market_open, next_refresh_at), heartbeats; resume with Last-Event-ID.",
  ),

  free(
    RECEIPT_PATH,
    null,
    "The receipt of a paid read, asked after it: by the x402 payment it was bought with (the same PAYMENT-SIGNATURE or X-PAYMENT header) or by its payment-identifier id and payer. Where its settlement stands (final, pending its block, or lost), the signed receipt in PAYMENT-RESPONSE; nothing is served again and no window applies.",
    z.object({
      payer: Single.pipe(z.string().trim().min(1, "give the payer's address").max(128)).optional().describe("The payer's address (with payment_id)."),
      payment_id: Single.pipe(z.string().regex(PAYMENT_ID_PATTERN, "16 to 128 characters of letters, digits, _ and -")).optional().describe("The payment-identifier id the payment carried (x402 extension)."),
    }),
  ),

  { ...other("/api/live/feed", "live", ["GET"], "Engine-grade live feed.", LIVE_TIERS), view: "live-feed" },
  { ...other("/api/live/rules", "live", ["GET"], "The published rules of engagement.", LIVE_TIERS), view: "live-rules" },
  {
    ...other("/api/live/setup", "live", ["GET"], "Per name, the full setup.", LIVE_TIERS),
    query: z.object({ sym: SymList.optional() }),
    view: "live-setup",
  },

  other("/", "page", ["GET"], "The landing page for people: the free slice drawn, prices, how to pay, the documents."),
  other(
    "/mcp",
    "mcp",
    ["GET", "POST", "DELETE"],
    "The MCP server (Streamable HTTP): the delayed board free, the free views as resources that notify, live reads per call over x402, the live tier on a live-feed license. POST answers in JSON, with or without a session; GET is a session's notification stream, DELETE ends it.",
  ),
  other(
    MCP_LIVE_PATH,
    "mcp",
    ["POST"],
    "The live tier's MCP server for hosts that sign in: a bearer token for this resource (OAuth authorization code with PKCE, the holder entering a live-feed license key).",
    ["bearer"],
  ),
  other("/api", "discovery", ["GET"], "The 402 catalogue of every paid offer."),
  other("/openapi.json", "discovery", ["GET"], "OpenAPI 3.1 description."),
  other("/llms.txt", "discovery", ["GET"], "The board described for language models."),
  other("/.well-known/api-catalog", "discovery", ["GET", "HEAD"], "RFC 9727 API catalog."),
  other("/.well-known/mcp/server-card.json", "discovery", ["GET"], "MCP server card."),
  other("/.well-known/mcp/server-card", "discovery", ["GET"], "MCP server card."),
  other("/.well-known/did.json", "discovery", ["GET"], "The did:web document of the keys that sign offers and receipts (x402 offer-receipt)."),
  other("/.well-known/x402", "discovery", ["GET"], "The x402 discovery document directories crawl (x402scan): every paid resource's URL, and how to call them."),
  {
    ...other(
      X402_DISCOVERY_RESOURCES_PATH,
      "discovery",
      ["GET"],
      "The paid resources as an x402 bazaar lists them (GET /discovery/resources of a facilitator): each with its offers and its bazaar declaration (how to call it, and an example of its answer).",
    ),
    query: DiscoveryResourcesQuery,
  },

  other("/api/key", "auth", ["POST"], "Issue a free API key for an email address."),
  {
    ...other("/api/auth/nonce", "auth", ["GET"], "A sign-in message to sign, with a server nonce."),
    query: z.object({ address: SignInAddressParam, chain: SignInChainParam }),
  },
  other("/api/auth/verify", "auth", ["POST"], "Exchange a signed sign-in message for a wallet-tier key."),
  other("/oauth/token", "auth", ["POST"], "The token endpoint: client credentials (a license key for a bearer), the authorization code with its PKCE verifier, and refresh tokens (each good once)."),
  other("/oauth/jwks", "auth", ["GET"], "Public keys that verify bearer tokens."),
  other("/oauth/authorize", "auth", ["GET", "POST"], "Authorization code grant with PKCE (S256 only): the consent page, where a license holder enters the license key (POST is its form)."),
  other("/oauth/register", "auth", ["POST"], "RFC 7591 dynamic client registration: redirect URIs https or loopback."),
  other("/.well-known/oauth-authorization-server", "auth", ["GET"], "RFC 8414 authorization server metadata."),
  other("/.well-known/oauth-protected-resource", "auth", ["GET"], "RFC 9728 protected resource metadata of the HTTP API."),
  other(`/.well-known/oauth-protected-resource${MCP_LIVE_PATH}`, "auth", ["GET"], `RFC 9728 protected resource metadata of ${MCP_LIVE_PATH}.`),
];

export const ROUTE_BY_PATH: ReadonlyMap<string, Route> = new Map(ROUTES.map((r) => [r.path, r]));

export const PAID_ROUTES = ROUTES.filter((r) => r.kind === "paid");

/**
 * The parameters a request of the route must carry: its required ones, or, where the route
 * takes one of several optional ones instead (asof's date, or sample=1), those but the free
 * variant's, so an example of it sells the paid read.
 */
export function neededParams(route: Route): string[] {
  const fields = Object.entries(route.query.shape) as [string, z.ZodType][];
  const required = fields.filter(([, field]) => !field.safeParse(undefined).success).map(([name]) => name);
  if (required.length > 0 || route.query.safeParse({}).success) return required;
  return fields.map(([name]) => name).filter((name) => name !== route.freeVariant?.param);
}

/** The view a request is served from: the free variant when its query asks for it. */
export function viewFor(route: Route, query: Record<string, unknown>): { view: ViewName | null; free: boolean } {
  const v = route.freeVariant;
  if (v && query[v.param] === v.value) return { view: v.view, free: true };
  return { view: route.view, free: route.kind !== "paid" && route.kind !== "live" };
}
