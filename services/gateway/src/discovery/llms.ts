import {
  ACCESS_TOKEN_SCOPE,
  ACCESS_TOKEN_SECONDS,
  BOARD_EVENTS_PATH,
  DEFAULT_NEW_CREDENTIAL_LIMITS,
  FREE_DAILY_LIMIT,
  FREE_KEY_IDLE_DAYS,
  MCP_LIVE_PATH,
  MCP_RESOURCES,
  MCP_SESSION_DEFAULTS,
  MCP_TOOLS,
  neededParams,
  PAID_ROUTES,
  ROUTE_BY_PATH,
  ROUTES,
  SIGN_IN_SESSION_SECONDS,
  X402_DISCOVERY_RESOURCES_PATH,
  type McpTool,
  type Route,
  type ViewName,
} from "@board/proto";
import type { z } from "zod";
import { deprecatedRouteLines } from "./deprecations.js";
import { methodologyBody } from "./methodology.js";
import { MPP_TERMS, RAILS } from "./offers.js";
import { inlineSchema } from "./schemas.js";
import {
  BURST_TERMS,
  CORS_TERMS,
  CREDENTIALS,
  EVENTS_TERMS,
  FREE_TIER_ROUTES,
  FREE_TIER_TERMS,
  HEAD_TERMS,
  LIMITS,
  POLLING_TERMS,
  PRICE_RANGE,
  SERVICE_SUMMARY,
  SERVICE_TITLE,
  credential,
  priceWords,
} from "./terms.js";

/** Example values of required query parameters that have no single allowed value. */
const EXAMPLES: Record<string, string> = { sym: "AAPL,MSFT", address: "<ADDRESS>", chain: "eip155:8453", date: "<YYYY-MM-DD>", since: "<CONTENT_HASH>" };

/** A route's URL with the parameters it needs (neededParams) filled in: name?sym=AAPL,MSFT, asof?date=<YYYY-MM-DD>. */
function exampleUrl(origin: string, route: Route): string {
  const shape = route.query.shape as Record<string, z.ZodType>;
  const query = neededParams(route).map((param) => {
    const schema = inlineSchema(shape[param]!, "output");
    return `${param}=${typeof schema["const"] === "string" ? schema["const"] : (EXAMPLES[param] ?? `<${param}>`)}`;
  });
  return `${origin}${route.path}${query.length > 0 ? `?${query.join("&")}` : ""}`;
}

const link = (title: string, url: string, notes: string) => `- [${title}](${url}): ${notes}`;

/** What a paid route's free variant serves, by its view. */
const FREE_VARIANT_NOTES: Partial<Record<ViewName, string>> = {
  preview: "the free preview: the full board's schema, previous trading day, top 3 names per book; no payment, no call cap",
  "asof-sample": "one complete committed sample day of scores, with its proof commitment; free",
};

function toolLine(tool: McpTool): string {
  const route = "route" in tool.source ? ROUTE_BY_PATH.get(tool.source.route) : undefined;
  const access =
    tool.access === "free" ? "free" : tool.access === "x402" ? `x402 per call, ${route ? priceWords(route) : "priced as its route"}` : "live-feed license on X-License-Key";
  const args = Object.keys(tool.input.shape);
  return `- \`${tool.name}\` (${access})${args.length > 0 ? `, arguments ${args.join(", ")}` : ""}: ${tool.description}`;
}

/**
 * /llms.txt (llmstxt.org): an H1 name, a blockquote summary, prose, then H2 sections of link
 * lists with their notes. Everything a priced or limited fact says comes from proto: the
 * route catalogue, its prices and tiers, the MCP tools, the free-tier and burst constants.
 */
export function llmsTxt(base: URL): string {
  const origin = base.origin;
  const at = (path: string) => `${origin}${path}`;
  const free = ROUTES.filter((r) => r.kind === "free");
  const variants = PAID_ROUTES.filter((r) => r.freeVariant);
  const key = credential("freeKey");
  const siwx = credential("signInWithX");
  const license = credential("licenseKey");
  const bearer = credential("bearer");

  const sections: [string, string[]][] = [
    [
      "Documents",
      [
        link("OpenAPI 3.1 description", at("/openapi.json"), "every route, parameter, response body, error code and price, machine-readable; paid operations carry x-payment-info"),
        link("API reference", at("/docs"), "the same description, browsable, with how a paid route's 402 is answered (a page for people)"),
        link("API catalog", at("/.well-known/api-catalog"), "the RFC 9727 linkset of this host's APIs"),
        link("MCP server card", at("/.well-known/mcp/server-card.json"), "the MCP server, its endpoint, its optional header and its tools"),
        link("Offer catalogue", at("/api"), "one 402 listing every paid route, its price, its tiers and every payment offer"),
        link("x402 discovery document", at("/.well-known/x402"), "every paid resource's URL, as x402 directories (x402scan) crawl them"),
        link("x402 bazaar listing", at(X402_DISCOVERY_RESOURCES_PATH), "every paid resource with its offers and bazaar declaration, as a bazaar's GET /discovery/resources lists them"),
        link("Landing page", at("/"), "the board for people"),
      ],
    ],
    [
      "Free reads",
      [
        "Free for everyone, no credential; the reads that carry scores are one trading day delayed.",
        "",
        ...free.map((r) => link(r.path, exampleUrl(origin, r), r.summary)),
        ...variants.map((r) => {
          const q = `?${r.freeVariant!.param}=${r.freeVariant!.value}`;
          return link(`${r.path}${q}`, `${at(r.path)}${q}`, FREE_VARIANT_NOTES[r.freeVariant!.view] ?? r.summary);
        }),
      ],
    ],
    [
      "Paid reads",
      [
        `Prices are in USDC (6 decimals; the 402 offers carry base units), the same on every rail: ${PRICE_RANGE}. ` +
          "Without payment or a credential a paid read answers 402 with its offers. A license key or bearer serves the same URLs live; " +
          `a free key or wallet sign-in also reads the ${FREE_TIER_ROUTES.length} routes marked free tier, within the daily free reads.`,
        "",
        ...PAID_ROUTES.map((r) =>
          link(r.path, exampleUrl(origin, r), `${priceWords(r)} per read. ${r.summary}${r.tiers.includes("free_key") ? " Free tier: yes." : ""}`),
        ),
      ],
    ],
    [
      "Live tier",
      [
        `A live-feed license key on ${license.header}, or a bearer minted from one; refreshed every 5 to 9 minutes in market hours, no daily cap. ` +
          "Without a credential the answer is 401 credential_required; a credential of another tier gets 403 forbidden.",
        "",
        ...ROUTES.filter((r) => r.kind === "live").map((r) => link(r.path, exampleUrl(origin, r), r.summary)),
      ],
    ],
    [
      "Access tiers",
      [
        "One credential is used per request, in this order: X-License-Key, Authorization: Bearer, SIGN-IN-WITH-X, X-Board-Key. An invalid one is refused " +
          "(403; 401 for a bearer; a fresh 402 for a sign-in), never replaced by a weaker one. Without a credential, the free reads are open and a paid read can be paid per read.",
        "",
        link("Anonymous", at("/api/board/free"), "no credential: the free reads, the free preview, and any paid read, paid per read."),
        link(
          "Free API key",
          at("/api/key"),
          `POST {"email": "you@example.com"} as JSON; the key comes back in the same response, shown once (the address is kept only as a salted hash). ` +
            `Send it as ${key.header}: ${FREE_DAILY_LIMIT} reads a UTC day across the free-tier reads. A key idle for ${FREE_KEY_IDLE_DAYS} days expires; posting the same email again issues a fresh key and retires the old one. ` +
            `One client address gets at most ${DEFAULT_NEW_CREDENTIAL_LIMITS.free_key} keys an hour (429 key_issue_limit with Retry-After).`,
        ),
        link(
          "Wallet sign-in",
          at("/api/auth/nonce"),
          "GET ?address=<ADDRESS>&chain=<CAIP-2 chain> for the CAIP-122 message to sign (EVM personal_sign, Solana signMessage or Algorand ed25519); every 402 carries the same challenge as its sign-in-with-x extension. " +
            `Send the signed payload, base64, as ${siwx.header}: a session until issuedAt plus ${SIGN_IN_SESSION_SECONDS / 60} minutes, ${FREE_DAILY_LIMIT} reads a day per address, no email, no funds moved. ` +
            "Or POST the payload to /api/auth/verify for a wallet key to send on X-Board-Key. " +
            `At most ${DEFAULT_NEW_CREDENTIAL_LIMITS.wallet} different wallets sign in from one client address an hour, either way (429 sign_in_limit with Retry-After); a wallet re-signing its session counts once.`,
        ),
        link("Pay per read (x402)", at("/api"), `no account: pay each read in USDC on Base, Solana or Algorand, ${PRICE_RANGE}; see How to pay.`),
        link(
          "Machine Payments Protocol",
          at("/api"),
          `the same reads over MPP: method ${MPP_TERMS.method}, intent ${MPP_TERMS.intent}, network ${MPP_TERMS.network}; challenge in WWW-Authenticate: Payment, credential in Authorization: Payment, receipt in Payment-Receipt.`,
        ),
        link("Batched gasless rail", at("/api"), "Circle's Gateway batched payments: pick the accepts entry whose extra.name is GatewayWalletBatched (scheme exact, eip155:8453); settles offchain."),
        link(
          "License keys",
          at("/"),
          `${license.header} (X-Board-License-Key is not read). A scanner license (monthly) serves every paid board read live over HTTP with no daily cap, but not inside MCP; ` +
            "a live-feed license (monthly or yearly) also opens /api/live/* and the licensed MCP tools. Sold outside the API; a cancelled license works to the end of its paid period.",
        ),
        link(
          "Bearer token",
          at("/oauth/token"),
          "POST grant_type=client_credentials (application/x-www-form-urlencoded) with client_id and client_secret (the license key), or Authorization: Basic. " +
            `The answer is an ES256 JWT, expires_in ${ACCESS_TOKEN_SECONDS}, scope ${ACCESS_TOKEN_SCOPE}, verifiable against /oauth/jwks. ` +
            `Send ${bearer.header}: Bearer <ACCESS_TOKEN> for the same live tier as its license over HTTP. Free keys cannot be exchanged for tokens. ` +
            "An application you sign in to instead registers at /oauth/register and sends you to /oauth/authorize (authorization code with PKCE S256) to enter your license key; its token is for the resource it asked for (RFC 8707): the HTTP API, /mcp/live, or both.",
        ),
      ],
    ],
    [
      "How to pay",
      [
        link("Offer catalogue", at("/api"), "every paid route's offers at once"),
        link("x402", "https://x402.org", "the payment protocol, v2 with CAIP-2 network ids"),
        "",
        "1. GET a paid URL without payment. The answer is 402: the PAYMENT-REQUIRED header holds base64 JSON of the x402 v2 PaymentRequired " +
          "(x402Version 2, resource, accepts, extensions: payment-identifier, bazaar (how to call the route and what it answers), offer-receipt (every accepts entry signed) and sign-in-with-x); the body holds the same offers in x402's v1 dialect, the reason code in `error`, advice in `message`, and the v2 object under `v2`.",
        `2. Pick one entry of accepts (each at the route's price): ${RAILS.map((r) => `${r.network}${r.extra ? ` with extra.name ${r.extra["name"]}` : ""} (${r.note})`).join("; ")}.`,
        "3. Sign a payment payload for exactly that entry with an x402 client (EIP-3009 transferWithAuthorization on Base; a sponsored transfer on Solana or Algorand).",
        "4. Repeat the GET with the base64 payload in PAYMENT-SIGNATURE (v2). X-PAYMENT takes a v1 payload (Base as base, Solana as solana) or a v2 one.",
        "5. The 200 carries the read and PAYMENT-RESPONSE (base64: transaction, network, payer, and extensions[\"offer-receipt\"].info.receipt: a signed receipt, JWS ES256, naming the route, price, payer, transaction and the board version sold by content hash and proof commitment; its key is at /.well-known/did.json, did:web). Keep it: `npm run verify-proof -- --receipt <file>` checks the signature and that the board version is committed in /api/board/proof. MPP's Payment-Receipt carries the same (contentHash, commitment, proofSeq, signedReceipt). A payment is single use and bound to its route; it is settled only after the read succeeded, so a failed read costs nothing.",
        "6. Lost the answer (a dropped connection, a timeout)? Send the same payment again: within 10 minutes of its settlement, up to 3 times, it is delivered the same read again (the same board version and bytes, the first receipt, and `Payment-Redelivery: n`), never charged again. An x402 v2 client may instead carry an id in the payment-identifier extension (declared in every 402): a new payment from the same payer with the same id gets the read the first one bought. Past the window or the count: 402 payment_redelivery_expired / payment_redelivery_exhausted.",
        "7. On Base a read priced up to 0.05 USDC is answered before its block, once its transfer is simulated and broadcast: PAYMENT-RESPONSE and the signed receipt say settlement \"pending\" (\"final\" once its transaction is two blocks deep and still on the chain, or at once when the chain had already mined it). Sending the same payment again once it is final delivers the read with the final receipt (within the redelivery window); at any time, GET /api/receipt with the same PAYMENT-SIGNATURE (or X-PAYMENT) header, or ?payer=<address>&payment_id=<id> for a payment that carried a payment-identifier id, answers where its settlement stands (final, pending or lost) and the receipt in PAYMENT-RESPONSE, serving nothing again. Each payer may hold at most 0.05 USDC served and not yet final; past it, its reads wait for their block, as the 0.25 USDC full board always does. A payer whose transfer fails after its read was served (its balance spent first) owes that read: its payments are refused with 402 payment_payer_in_arrears until the operator records it paid.",
        "",
        "A refused payment answers 402 again with fresh offers and `error` naming why (payment_amount_mismatch, payment_expired, payment_already_used, payment_insufficient_funds, ...). " +
          "With MPP, answer the WWW-Authenticate: Payment challenge with Authorization: Payment; a refused credential is answered with problem+json and a fresh challenge.",
      ],
    ],
    [
      "How to poll",
      [
        link("Board state", at("/api/board/state"), "a content hash per read: poll it, buy only when the hash of the read you want changes"),
        link("Status", at("/api/board/status"), "data freshness, reads served, last settlement, payments mode and live rails"),
        link("Board events", at(BOARD_EVENTS_PATH), "the same hashes pushed as each board is published (Server-Sent Events), instead of polling"),
        "",
        POLLING_TERMS,
        EVENTS_TERMS,
        "The board refreshes about every 5 minutes in US market hours; outside them the last board is served until the morning board, published 90 minutes before each open, and next_refresh_at names whichever comes next (the morning board after the close). The crypto book is refreshed on US weekdays only.",
        "How late the prices behind a board are is in its provider block, not in freshness (which says how old the board is): provider.delay is real_time, delayed_15m (the vendor's 15-minute delayed data), " +
          "end_of_day (daily closing bars only: the board does not change during the session), simulated (the default market simulator; provider.simulated is true) or recorded (recorded vendor responses replayed, not live); " +
          'provider.vendor and provider.feed name the vendor and its feed or plan. Boards published before these were said carry none of them. See Methodology, "Where the prices come from".',
      ],
    ],
    [
      "Limits",
      [
        link("OpenAPI description", at("/openapi.json"), "every operation lists the reason codes it can give per status"),
        "A typed client is generated from it unchanged (openapi-typescript with openapi-fetch, @hey-api/openapi-ts, orval): list parameters may go repeated (sym=AAPL&sym=MSFT, most generators' default) or comma-separated, " +
          "the same read at the same price; for paid routes hand the client a fetch wrapped by an x402 client (@x402/fetch), which answers the 402 and repeats the request.",
        "",
        ...LIMITS.map((l) => `- ${l.name}: ${l.value} (${l.applies}).`),
        "",
        FREE_TIER_TERMS,
        BURST_TERMS,
        HEAD_TERMS,
        CORS_TERMS,
        "Errors share one body, {\"error\": {\"code\", \"message\", \"status\", ...}}, with stable snake_case reason codes: 402 pay or re-sign, 403 re-check the key (or ask POST /api/key for a fresh free key), " +
          "429 back off for Retry-After seconds, 5xx retry with backoff and check /api/board/status. An unknown sym or sector answers 200 with the directory, not an error.",
      ],
    ],
    [
      "MCP server",
      [
        link(
          "MCP endpoint",
          at("/mcp"),
          "Streamable HTTP: POST JSON-RPC with Accept: application/json, text/event-stream. An initialize opens a session (Mcp-Session-Id, sent back on each request; GET is its notification stream, DELETE ends it); " +
            "any other POST without the header is answered on its own, so hosts that never initialize work as well",
        ),
        link(
          "MCP live tier, signed in",
          at(MCP_LIVE_PATH),
          "for MCP hosts that sign in (the MCP authorization spec): the first request is answered 401 with WWW-Authenticate: Bearer resource_metadata=\"" +
            at(`/.well-known/oauth-protected-resource${MCP_LIVE_PATH}`) +
            "\"; the host registers (POST /oauth/register, RFC 7591), sends you to /oauth/authorize (authorization code, PKCE S256) where you enter your live-feed license key, and gets a token for this resource alone, refreshed as it is used. " +
            "It serves get_engine_feed, get_live_rules, get_live_setup and the free tools.",
        ),
        link("Server card", at("/.well-known/mcp/server-card.json"), "the endpoint, its optional X-License-Key header, the tools and the resources"),
        "",
        "Free tools need nothing; the *_live tools are paid per call over x402's MCP transport (call without payment for the requirements, then again with _meta[\"x402/payment\"]); their descriptions state the price and rails, and the free get_price tool answers what any call costs before you make it; " +
          "the licensed tools read a live-feed license on the connection's X-License-Key (MCP reads no bearer and no scanner key).",
        "Resources: the free views, as application/json: " +
          MCP_RESOURCES.map((r) => `${r.uri} (${r.title.toLowerCase()})`).join(", ") +
          ". In a session, resources/subscribe to one and its notifications/resources/updated arrives on the session's GET stream within a second of each board published that changed it " +
          "(board://state changes with every board); then read it again. The paid views stay tools.",
        "Prompts (prompts/list, prompts/get): buy_on_change (read the state hashes, buy only on change), regime_before_buylist (read the regime verdict before the buy list), check_price_first.",
        "One tools/call per POST: a JSON-RPC batch holding a tools/call is refused (error -32600). Every call spends the client address's burst (paid calls before their payment is checked).",
        `Sessions: up to ${MCP_SESSION_DEFAULTS.perClient} per client address (an IPv6 client counts as its /64) and ${MCP_SESSION_DEFAULTS.perReplica} per gateway replica (past either an initialize is answered without a session: tools and reads work, subscriptions do not); ` +
          `a session with no request and no open GET stream ends after ${MCP_SESSION_DEFAULTS.idleSeconds / 60} minutes. ` +
          "A session lives on one replica: a request whose Mcp-Session-Id is unknown there (ended, or the replica changed) is answered 404, and the client initializes again.",
        "Results are typed: every tool declares an outputSchema (the read's body as /openapi.json describes it, or the error body, or on a *_live tool x402's PaymentRequired), " +
          "and a served result carries the read in structuredContent as well as the same JSON as text in content[0].",
        "",
        ...MCP_TOOLS.map(toolLine),
      ],
    ],
    [
      "Methodology",
      [
        link("Signal audit", at("/api/board/signal-audit"), "forward returns of past committed boards, by state and by opportunity decile"),
        link("Proof", at("/api/board/proof"), "append-only sha256 pre-commitments of every published board"),
        "",
        methodologyBody(3),
      ],
    ],
    [
      "Optional",
      [
        link("OAuth authorization server metadata", at("/.well-known/oauth-authorization-server"), "RFC 8414"),
        link("OAuth protected resource metadata", at("/.well-known/oauth-protected-resource"), "RFC 9728, the HTTP API"),
        link("OAuth protected resource metadata of /mcp/live", at(`/.well-known/oauth-protected-resource${MCP_LIVE_PATH}`), "RFC 9728, the live tier's MCP server"),
        link("JWKS", at("/oauth/jwks"), "the keys that verify bearer tokens"),
        link("DID document", at("/.well-known/did.json"), "the keys that sign offers and receipts (did:web, every key ever used)"),
      ],
    ],
  ];

  const intro = [
    `# ${SERVICE_TITLE}`,
    "",
    `> ${SERVICE_SUMMARY}`,
    "",
    "Four books: spx (the S&P 500), qqq (the Nasdaq-100), macro (macro and sector ETFs) and crypto (BTC-USD and ETH-USD, long-only trend signals on the UTC daily close). " +
      "Every name is scored for opportunity (0-100 and its percentile), entry state (READY, SETUP, WAIT, CHASE, FALLING, with a firing or cold light) and hold strength; " +
      "every book has a regime verdict (NAMES_ON, SELECTIVE, SECTORS_ON, INDEX_ONLY, RISK_OFF) that sets how far down the ranking the green goes, sector cards and two buy-list lanes.",
    "",
    "The output is identical for every reader: an impersonal research publication, not individualized investment advice. Scores describe historical and technical structure, not future returns. " +
      `Every address below is under ${origin}; paths carry no version, and every response is JSON unless noted.`,
    `Credential headers: ${CREDENTIALS.map((c) => c.header)
      .filter((h, i, all) => all.indexOf(h) === i)
      .join(", ")}.`,
  ];
  // Only while a route is deprecated: which, until when, and where its notice is.
  const deprecated = deprecatedRouteLines(ROUTES, base);
  if (deprecated.length > 0) sections.unshift(["Deprecated routes", ["Each answers as before until its sunset; move off it before then.", "", ...deprecated]]);
  return `${[...intro, ...sections.flatMap(([title, lines]) => ["", `## ${title}`, "", ...lines])].join("\n")}\n`;
}
