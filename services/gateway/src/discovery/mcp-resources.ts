import { MCP_RESOURCES } from "@board/proto";
import type { Resource } from "@modelcontextprotocol/sdk/types.js";

/** Every resource of /mcp as resources/list lists it: what the server card shows too. */
export const LISTED_RESOURCES: readonly Resource[] = MCP_RESOURCES.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType }));

/** The resource capability of a server with sessions (/mcp): each resource can be subscribed to; the list is fixed. */
export const RESOURCES_CAPABILITY = { subscribe: true, listChanged: false } as const;
