import { EVENT_STREAM_DEFAULTS, MCP_SESSION_DEFAULTS } from "@board/proto";
import { baseEnv, parseEnv } from "@board/service-kit";
import { z } from "zod";

export const GatewayEnv = baseEnv(9101).extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe("HTTP port of the API."),
  HOST: z.string().min(1).default("0.0.0.0").describe("HTTP bind address."),
  /** How long a board read may take on the bus before the client gets a 504. */
  BUS_TIMEOUT_MS: z.coerce.number().int().min(50).max(30000).default(3000),
  /** Express "trust proxy": the hops in front of the gateway (0 when clients connect directly). */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** Where clients reach the service: the OAuth issuer and resource, and the 401 challenges' metadata links. */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).default("http://localhost:8080"),
  /** /api/board/events: open streams one client address may hold on this replica. */
  EVENTS_MAX_STREAMS_PER_CLIENT: z.coerce.number().int().min(1).max(100_000).default(EVENT_STREAM_DEFAULTS.perClient),
  /** /api/board/events: open streams this replica holds at most (each idle one costs some kilobytes; see docs/decisions.md). */
  EVENTS_MAX_STREAMS: z.coerce.number().int().min(1).max(1_000_000).default(EVENT_STREAM_DEFAULTS.perReplica),
  /** Seconds between heartbeats (SSE comments) on every stream: under the proxies' read timeouts. */
  EVENTS_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(EVENT_STREAM_DEFAULTS.heartbeatSeconds),
  /** A stream whose client does not read is dropped once the gateway holds this many bytes for it... */
  EVENTS_SLOW_CLIENT_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(64 * 1024),
  /** ...or once a write has waited this long to drain. */
  EVENTS_SLOW_CLIENT_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  /** /mcp: sessions one client address may hold on this replica; past it an initialize is answered without a session (no subscriptions). */
  MCP_MAX_SESSIONS_PER_CLIENT: z.coerce.number().int().min(1).max(100_000).default(MCP_SESSION_DEFAULTS.perClient),
  /** /mcp: sessions this replica holds at most (see docs/decisions.md for what one costs). */
  MCP_MAX_SESSIONS: z.coerce.number().int().min(1).max(1_000_000).default(MCP_SESSION_DEFAULTS.perReplica),
  /** /mcp: a session with no request and no open GET stream for this long is ended (its id then meets 404). */
  MCP_SESSION_IDLE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(MCP_SESSION_DEFAULTS.idleSeconds),
});
export type GatewayEnv = z.infer<typeof GatewayEnv>;

export const loadEnv = (): GatewayEnv => parseEnv(GatewayEnv, process.env, "gateway");
