/** The discovery tests' one setting: a copy of the MCP registry's published server.schema.json (server-json.test.ts). */
export const MCP_REGISTRY_SCHEMA: string | undefined = process.env.MCP_REGISTRY_SCHEMA?.trim() || undefined;
