import { MCP_RESOURCES, MCP_TOOLS } from "@board/proto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ServerCard, serverCard } from "../../src/discovery/server-card.js";
import { toolOutput } from "../../src/discovery/tool-output.js";

describe("serverCard", () => {
  const card = ServerCard.parse(serverCard(new URL("https://board.example.org")));

  it("names the server in reverse DNS and its streamable HTTP endpoint", () => {
    expect(card.name).toBe("org.example.board/scored-market-board");
    expect(card.serverInfo).toEqual({ name: "scored-market-board", title: "Scored Market Board", version: "1.1.0" });
    expect(card.remotes).toEqual([
      expect.objectContaining({ type: "streamable-http", url: "https://board.example.org/mcp" }),
      expect.objectContaining({ type: "streamable-http", url: "https://board.example.org/mcp/live" }),
    ]);
    // /mcp/live takes no header: a host signs in when its first request is answered 401.
    expect(card.remotes[1]?.headers).toBeUndefined();
    expect(card.remotes[0]?.supportedProtocolVersions?.length).toBeGreaterThan(0);
  });

  it("declares X-License-Key as an optional secret header", () => {
    expect(card.remotes[0]?.headers).toEqual([expect.objectContaining({ name: "X-License-Key", isRequired: false, isSecret: true })]);
  });

  it("lists every MCP tool with its input and its output as JSON Schema, then get_price", () => {
    expect(card.tools.map((t) => t.name)).toEqual([...MCP_TOOLS.map((t) => t.name), "get_price"]);
    for (const tool of MCP_TOOLS) {
      const listed = card.tools.find((t) => t.name === tool.name)!;
      expect(listed.inputSchema).toEqual(z.toJSONSchema(tool.input, { io: "input" }));
      expect(listed.outputSchema).toEqual(toolOutput(tool).schema);
    }
  });

  it("lists the free views as resources, each subscribable", () => {
    expect(card.capabilities).toEqual({ tools: { listChanged: false }, prompts: { listChanged: false }, resources: { subscribe: true, listChanged: false } });
    expect(card.resources?.map((r) => [r.uri, r.mimeType])).toEqual(MCP_RESOURCES.map((r) => [r.uri, "application/json"]));
  });

  it("keeps an IP address host as it is", () => {
    expect(serverCard(new URL("http://127.0.0.1:8080")).name).toBe("127.0.0.1/scored-market-board");
  });
});
