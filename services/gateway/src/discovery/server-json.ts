import { CREDENTIAL_HEADERS } from "../http/headers.js";
import { serverCard, type ServerCard } from "./server-card.js";

/**
 * server.json as the MCP registry publishes a server (its server.schema.json of 2025-12-11:
 * name, title, description, version, websiteUrl, remotes with their headers), made from the
 * server card, so the registry's entry says what /.well-known/mcp/server-card.json says. Only
 * remotes: the service is a hosted endpoint, no package to install.
 */
export const SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

interface Header {
  name: string;
  description: string;
  isRequired: boolean;
  isSecret: boolean;
  format: "string";
}

export interface ServerJson {
  $schema: typeof SERVER_JSON_SCHEMA;
  name: string;
  title: string;
  description: string;
  version: string;
  websiteUrl: string;
  remotes: { type: "streamable-http" | "sse"; url: string; headers?: Header[] }[];
}

/** The live tier's header: the host gets the token by the OAuth sign-in /mcp/live's 401 starts; documented, never asked for up front. */
const LIVE_AUTHORIZATION: Header = {
  name: CREDENTIAL_HEADERS.authorization,
  description:
    "Bearer <token> of a live-feed license holder's OAuth sign-in: a host that supports MCP authorization gets it itself from the 401's WWW-Authenticate challenge. Opens the live tier (get_engine_feed, get_live_rules, get_live_setup).",
  isRequired: false,
  isSecret: true,
  format: "string",
};

/** The per-call payment rides in each call, not in a header: said on /mcp's remote so a registry reader sees how paid tools are paid. */
const PAYMENT_NOTE = ' The *_live tools are paid per call over x402: the payment rides in the call\'s _meta["x402/payment"], not in a header; get_price tells each price, free.';

export function serverJsonOf(card: ServerCard): ServerJson {
  const [open, live] = card.remotes;
  if (!open || !live) throw new Error("the server card lists /mcp and /mcp/live");
  return {
    $schema: SERVER_JSON_SCHEMA,
    name: card.name,
    title: card.title,
    description: card.description,
    version: card.version,
    websiteUrl: card.websiteUrl,
    remotes: [
      {
        type: open.type,
        url: open.url,
        headers: (open.headers ?? []).map((h) => ({
          name: h.name,
          description: `${h.description ?? ""}${h.name === CREDENTIAL_HEADERS.license ? PAYMENT_NOTE : ""}`.trim(),
          isRequired: h.isRequired ?? false,
          isSecret: h.isSecret ?? false,
          format: "string",
        })),
      },
      { type: live.type, url: live.url, headers: [LIVE_AUTHORIZATION] },
    ],
  };
}

/** server.json of the service at `base` (its public base URL). */
export const serverJson = (base: URL): ServerJson => serverJsonOf(serverCard(base));

/** The file's text: two-space JSON and a final newline, as committed. */
export const serverJsonText = (base: URL): string => `${JSON.stringify(serverJson(base), null, 2)}\n`;
