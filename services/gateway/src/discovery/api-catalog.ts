import { z } from "zod";
import { SERVICE_TITLE } from "./terms.js";

/** RFC 9727 5.1: the api-catalog's media type, a linkset (RFC 9264) with the api-catalog profile. */
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
export const API_CATALOG_PATH = "/.well-known/api-catalog";
export const OPENAPI_TYPE = "application/vnd.oai.openapi+json;version=3.1";
export const SERVER_CARD_TYPE = "application/mcp-server-card+json";

/** A target link of a linkset context (RFC 9264 4.2.2). */
export const LinkTarget = z.object({ href: z.url(), type: z.string().optional(), title: z.string().optional() });
export type LinkTarget = z.infer<typeof LinkTarget>;

const Links = z.array(LinkTarget).min(1).optional();

/** One link context object (RFC 9264 4.2.1): its anchor and its links, by the relation types this catalog uses. */
export const LinkContext = z.object({ anchor: z.url(), item: Links, "service-desc": Links, "service-doc": Links, "service-meta": Links, status: Links });
export type LinkContext = z.infer<typeof LinkContext>;

export const Linkset = z.object({ linkset: z.array(LinkContext).min(1) });
export type Linkset = z.infer<typeof Linkset>;

/**
 * The api-catalog of this host (RFC 9727): the HTTP API and the MCP server, each with its
 * machine-readable description (service-desc), documentation (service-doc) and status.
 */
export function apiCatalog(base: URL): Linkset {
  const at = (path: string) => new URL(path, base.origin).toString();
  const status = [{ href: at("/api/board/status"), type: "application/json", title: "Service status (free)" }];
  return {
    linkset: [
      {
        anchor: at(API_CATALOG_PATH),
        item: [
          { href: at("/"), title: `${SERVICE_TITLE} HTTP API` },
          { href: at("/mcp"), title: `${SERVICE_TITLE} MCP server` },
        ],
      },
      {
        anchor: at("/"),
        "service-desc": [{ href: at("/openapi.json"), type: OPENAPI_TYPE, title: "OpenAPI 3.1 description" }],
        "service-doc": [
          { href: at("/llms.txt"), type: "text/markdown", title: "The board described for language models" },
          { href: at("/"), type: "text/html", title: "The landing page" },
        ],
        status,
      },
      {
        anchor: at("/mcp"),
        "service-desc": [
          { href: at("/.well-known/mcp/server-card.json"), type: SERVER_CARD_TYPE, title: "MCP server card" },
          { href: at("/.well-known/mcp/server-card"), type: SERVER_CARD_TYPE, title: "MCP server card" },
        ],
        "service-doc": [{ href: at("/llms.txt"), type: "text/markdown", title: "The board and its MCP tools described for language models" }],
        status,
      },
    ],
  };
}

/** The Link header every discovery document carries (RFC 9727 3). */
export const apiCatalogLink = (base: URL) => `<${new URL(API_CATALOG_PATH, base.origin).toString()}>; rel="api-catalog"`;
