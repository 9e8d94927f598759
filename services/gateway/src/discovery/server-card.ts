import { MCP_LIVE_PATH } from "@board/proto";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { LISTED_PROMPTS, PROMPTS_CAPABILITY } from "./mcp-prompts.js";
import { LISTED_RESOURCES, RESOURCES_CAPABILITY } from "./mcp-resources.js";
import { MCP_LISTED_TOOLS } from "./mcp-tools.js";
import { SERVICE_NAME, SERVICE_TITLE, SERVICE_VERSION } from "./terms.js";

/**
 * The MCP server card. The shape follows SEP-2127 (modelcontextprotocol PR #2127, schema.ts of
 * modelcontextprotocol/experimental-ext-server-card: $schema, reverse-DNS name, version,
 * description, remotes with their headers and protocol versions), plus the serverInfo,
 * capabilities and tools of the earlier SEP-1649 card, which SEP-2127's open schema allows and
 * crawlers of /.well-known/mcp/server-card.json still read. The tools are tools/list's own
 * entries (JSON Schemas of MCP_TOOLS' zod inputs and of their outputs, and get_price), the
 * resources resources/list's and the prompts prompts/list's, so the card cannot disagree with
 * the server.
 */
export const SERVER_CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

const KeyValueInput = z.object({
  name: z.string(),
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  format: z.enum(["string", "number", "boolean", "filepath"]).optional(),
});

export const ServerCard = z.object({
  $schema: z.literal(SERVER_CARD_SCHEMA),
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  version: z.string().max(255),
  title: z.string().min(1).max(100),
  description: z.string().min(1).max(100),
  websiteUrl: z.url(),
  remotes: z.array(
    z.object({
      type: z.enum(["streamable-http", "sse"]),
      url: z.string().regex(/^https?:\/\/\S+$/),
      headers: z.array(KeyValueInput).optional(),
      supportedProtocolVersions: z.array(z.string()).optional(),
    }),
  ),
  serverInfo: z.object({ name: z.string(), title: z.string(), version: z.string() }),
  capabilities: z.object({
    tools: z.object({ listChanged: z.boolean() }),
    prompts: z.object({ listChanged: z.boolean() }).optional(),
    resources: z.object({ subscribe: z.boolean(), listChanged: z.boolean() }).optional(),
  }),
  tools: z.array(
    z.looseObject({
      name: z.string(),
      title: z.string().optional(),
      description: z.string().optional(),
      inputSchema: z.looseObject({ type: z.literal("object") }),
      outputSchema: z.looseObject({ type: z.literal("object") }).optional(),
    }),
  ),
  resources: z.array(z.looseObject({ uri: z.string(), name: z.string(), title: z.string().optional(), description: z.string().optional(), mimeType: z.string().optional() })).optional(),
  prompts: z.array(z.looseObject({ name: z.string(), title: z.string().optional(), description: z.string().optional() })).optional(),
});
export type ServerCard = z.infer<typeof ServerCard>;

/** Reverse-DNS of the public host (an IP address or a single label stays as it is). */
function namespaceOf(host: string): string {
  if (/^[\d.]+$/.test(host) || host.startsWith("[") || !host.includes(".")) return host.replace(/[^a-zA-Z0-9.-]/g, "-");
  return host.split(".").reverse().join(".");
}

export function serverCard(base: URL): ServerCard {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: `${namespaceOf(base.hostname)}/${SERVICE_NAME}`,
    version: SERVICE_VERSION,
    title: SERVICE_TITLE,
    description: "Market scores for ~565 stocks, ETFs and crypto: a free delayed board, live reads paid per call.",
    websiteUrl: new URL("/", base.origin).toString(),
    remotes: [
      {
        type: "streamable-http",
        url: new URL("/mcp", base.origin).toString(),
        headers: [
          {
            name: "X-License-Key",
            description: "A live-feed license key: opens get_engine_feed, get_live_rules and get_live_setup. Not needed for the free tools or the per-call x402 tools.",
            isRequired: false,
            isSecret: true,
            format: "string",
          },
        ],
        supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
      },
      // The live tier for hosts that sign in: no header to configure, the 401's challenge starts the host's OAuth sign-in.
      { type: "streamable-http", url: new URL(MCP_LIVE_PATH, base.origin).toString(), supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS] },
    ],
    serverInfo: { name: SERVICE_NAME, title: SERVICE_TITLE, version: SERVICE_VERSION },
    capabilities: { tools: { listChanged: false }, prompts: { ...PROMPTS_CAPABILITY }, resources: { ...RESOURCES_CAPABILITY } },
    tools: MCP_LISTED_TOOLS.map((t) => ({ ...t, inputSchema: { ...t.inputSchema, type: "object" as const } })),
    resources: [...LISTED_RESOURCES],
    prompts: [...LISTED_PROMPTS],
  };
}
