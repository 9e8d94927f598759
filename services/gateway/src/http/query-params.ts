/** A validated query as the board reads it: strings, a list joined by commas (HTTP reads and MCP tool calls alike). */
export function stringParams(q: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(q)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]),
  );
}
