import { X402_DISCOVERY_RESOURCES_PATH } from "@board/proto";
import type { Request, Response } from "express";
import type { ReadDeps } from "../reads/read.js";
import { API_CATALOG_PATH, API_CATALOG_TYPE, SERVER_CARD_TYPE, apiCatalog, apiCatalogLink } from "./api-catalog.js";
import { getDidDocument } from "./did-document.js";
import { document, sendDocument, type Document } from "./document.js";
import { llmsTxt } from "./llms.js";
import { openApiDocument } from "./openapi.js";
import { serverCard } from "./server-card.js";
import { getDiscoveryResources } from "./x402-resources.js";
import { x402DiscoveryDocument } from "./x402-well-known.js";

export type DiscoveryHandler = (deps: ReadDeps, req: Request, res: Response) => Promise<void> | void;

/** Each document depends only on the public base URL: rendered on first request, then served from memory. */
type Renderer = (base: URL) => Document;

const withLink = (base: URL) => ({ Link: apiCatalogLink(base) });

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
/** The OpenAPI document is large (about 250 KB): sent compact. */
const compact = (value: unknown) => JSON.stringify(value);

const RENDERERS: Record<string, Renderer> = {
  "/openapi.json": (base) => document(compact(openApiDocument(base)), "application/json; charset=utf-8", { headers: withLink(base) }),
  "/llms.txt": (base) => document(llmsTxt(base), "text/markdown; charset=utf-8", { headers: withLink(base) }),
  "/.well-known/x402": (base) => document(json(x402DiscoveryDocument(base)), "application/json; charset=utf-8", { headers: withLink(base) }),
  [API_CATALOG_PATH]: (base) => document(json(apiCatalog(base)), API_CATALOG_TYPE, { headers: withLink(base) }),
  "server-card:json": (base) => document(json(serverCard(base)), "application/json; charset=utf-8", { cacheControl: "public, max-age=3600", headers: { ...withLink(base), Vary: "Accept" } }),
  "server-card:card": (base) => document(json(serverCard(base)), SERVER_CARD_TYPE, { cacheControl: "public, max-age=3600", headers: { ...withLink(base), Vary: "Accept" } }),
};

const rendered = new Map<string, Document>();

function rendition(name: string, base: URL): Document {
  const key = `${base.origin} ${name}`;
  let doc = rendered.get(key);
  if (!doc) {
    const render = RENDERERS[name];
    if (!render) throw new Error(`no discovery document ${name}`);
    doc = render(base);
    rendered.set(key, doc);
  }
  return doc;
}

const serve =
  (name: string): DiscoveryHandler =>
  (deps, req, res) =>
    sendDocument(req, res, rendition(name, deps.publicBaseUrl));

/** SEP-2127 asks clients to send Accept: application/mcp-server-card+json; everyone else gets plain JSON. */
const serveCard: DiscoveryHandler = (deps, req, res) => {
  const wantsCard = (req.headers.accept ?? "").toLowerCase().includes(SERVER_CARD_TYPE);
  sendDocument(req, res, rendition(wantsCard ? "server-card:card" : "server-card:json", deps.publicBaseUrl));
};

/** The discovery documents of SPEC.md 4.2, by path (GET /api is the payments catalogue, answered elsewhere). */
export const DISCOVERY_HANDLERS: Record<string, DiscoveryHandler> = {
  "/openapi.json": serve("/openapi.json"),
  "/llms.txt": serve("/llms.txt"),
  [API_CATALOG_PATH]: serve(API_CATALOG_PATH),
  "/.well-known/mcp/server-card.json": serveCard,
  "/.well-known/mcp/server-card": serveCard,
  "/.well-known/did.json": getDidDocument,
  "/.well-known/x402": serve("/.well-known/x402"),
  [X402_DISCOVERY_RESOURCES_PATH]: getDiscoveryResources,
};
