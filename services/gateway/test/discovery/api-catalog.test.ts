import { describe, expect, it } from "vitest";
import { API_CATALOG_TYPE, Linkset, apiCatalog, apiCatalogLink } from "../../src/discovery/api-catalog.js";

describe("apiCatalog", () => {
  const base = new URL("https://board.example.org/ignored/path");
  const catalog = Linkset.parse(apiCatalog(base));
  const context = (anchor: string) => catalog.linkset.find((c) => c.anchor === anchor);

  it("is an RFC 9727 linkset with the api-catalog profile", () => {
    expect(API_CATALOG_TYPE).toBe('application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
    expect(context("https://board.example.org/.well-known/api-catalog")?.item?.map((l) => l.href)).toEqual(["https://board.example.org/", "https://board.example.org/mcp"]);
  });

  it("points the HTTP API at its description, its docs and its status", () => {
    const api = context("https://board.example.org/");
    expect(api?.["service-desc"]?.map((l) => l.href)).toEqual(["https://board.example.org/openapi.json"]);
    expect(api?.["service-doc"]?.map((l) => l.href)).toEqual(["https://board.example.org/llms.txt", "https://board.example.org/"]);
    expect(api?.status?.map((l) => l.href)).toEqual(["https://board.example.org/api/board/status"]);
  });

  it("points the MCP server at its server card", () => {
    const mcp = context("https://board.example.org/mcp");
    expect(mcp?.["service-desc"]?.map((l) => l.href)).toContain("https://board.example.org/.well-known/mcp/server-card.json");
  });

  it("has a Link header value naming it", () => {
    expect(apiCatalogLink(base)).toBe('<https://board.example.org/.well-known/api-catalog>; rel="api-catalog"');
  });
});
