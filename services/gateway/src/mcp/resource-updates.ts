import { MCP_RESOURCES, type BoardPublishedEvent, type McpResource } from "@board/proto";

/**
 * The resources a publication changed, from the hashes its event carries: a view whose hash
 * differs from the previous event's (or that the previous event lacked), and the state read
 * with every publication (it names the snapshot). Freshness is not content: the hashes leave
 * it out, so an intraday board does not touch the delayed board's resource.
 */
export function changedResources(previous: BoardPublishedEvent | null, next: BoardPublishedEvent): McpResource[] {
  return MCP_RESOURCES.filter((r) => r.view === "state" || next.views[r.view] !== previous?.views[r.view]);
}
