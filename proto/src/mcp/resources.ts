import type { ViewName } from "../records/views.js";

/**
 * A free view as an MCP resource: a stable URI (its own scheme, since the delayed board has no
 * HTTP path and the host part of an https URL would change with the deployment), its view, and
 * the route whose reads it counts under (the delayed board, which has no route, under /mcp).
 */
export interface McpResource {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: "application/json";
  readonly view: ViewName;
  readonly route: string | null;
}

const resource = (view: ViewName, route: string | null, name: string, title: string, description: string): McpResource => ({
  uri: `board://${view}`,
  name,
  title,
  description,
  mimeType: "application/json",
  view,
  route,
});

/**
 * The free views as resources a host can attach and subscribe to (paid views stay tools: a
 * resource read carries no payment). Each is the body of the free tool of the same read.
 */
export const MCP_RESOURCES: readonly McpResource[] = [
  resource("delayed", null, "delayed-board", "Delayed full board", "The whole board (every name, every book's regime verdict, cards and lanes), one trading day delayed. Updated when the trading day it shows moves on."),
  resource("free", "/api/board/free", "free-board", "Free slice", "The previous trading day's top 3 names per book with regime lines. Updated with the delayed board."),
  resource("symbols", "/api/board/symbols", "symbols", "Symbol directory", "Every symbol the board scores, its sector and books. Updated when the universe changes."),
  resource("state", "/api/board/state", "board-state", "Change detection", "A content hash per read and the freshness block. Updated with every board published: subscribe to learn of each one."),
];

export const MCP_RESOURCE_BY_URI: ReadonlyMap<string, McpResource> = new Map(MCP_RESOURCES.map((r) => [r.uri, r]));

/**
 * The MCP sessions' terms as a gateway runs them by default (its MCP_* variables), stated by
 * the documents: sessions per client address and per gateway replica, how long an unused
 * session lives, and how often a session's GET stream carries a keep-alive comment.
 */
export const MCP_SESSION_DEFAULTS = { perClient: 8, perReplica: 5000, idleSeconds: 1800, keepaliveSeconds: 15 } as const;
