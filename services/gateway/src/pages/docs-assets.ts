import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { prepare, prepareLarge, type Prepared } from "./prepared.js";

/**
 * The API reference is drawn by swagger-ui-dist, served from this gateway: it ships Swagger UI
 * as one prebuilt browser bundle and one style sheet, with no runtime dependency of its own to
 * resolve or serve (its one declared package, @scarf/scarf, is an install-time hook the bundle
 * never loads), so nothing of the page comes from another origin.
 */
const DIST = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** Where the reference's files are served; each name carries its content hash, so a URL's bytes never change. */
export const DOCS_ASSETS_PATH = "/docs/assets";

/** A year, immutable: a new bundle or initializer is a new URL. */
export const ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable";

/**
 * The page's own script: it starts Swagger UI on /openapi.json. A file, not inline, so the
 * page's Content-Security-Policy admits scripts of this origin only. validatorUrl null: the
 * reference never asks swagger.io to validate the description (its default badge would).
 * deepLinking off: it wraps each operation's path in a link inside the operation's button,
 * an interactive control nested in another (axe nested-interactive). syntaxHighlight off: its
 * token colours on the dark example background fail WCAG contrast; plain text is white on it.
 */
const INITIALIZER = `"use strict";
window.addEventListener("DOMContentLoaded", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    defaultModelsExpandDepth: 0,
    docExpansion: "list",
    tryItOutEnabled: false,
    filter: true,
    syntaxHighlight: false,
    onComplete: function () {
      // Swagger UI's server picker has no label of its own.
      var servers = document.getElementById("servers");
      if (servers) servers.setAttribute("aria-label", "Server the requests go to");
    }
  });
});
`;

export interface DocsAsset {
  /** The URL path, content hash in its name. */
  path: string;
  contentType: string;
  body: Prepared;
}

export interface DocsAssets {
  bundle: DocsAsset;
  css: DocsAsset;
  init: DocsAsset;
  byPath: ReadonlyMap<string, DocsAsset>;
}

/** The map comments point a browser's developer tools at files we do not serve; dropped. */
const withoutSourceMap = (text: string) => text.replace(/\n?\/[/*]# sourceMappingURL=\S+?(\s*\*\/)?\s*$/, "\n");

function asset(name: string, ext: string, contentType: string, body: Prepared): DocsAsset {
  const hash = body.etag.replace(/^W\/"|"$/g, "").slice(0, 12);
  return { path: `${DOCS_ASSETS_PATH}/${name}.${hash}.${ext}`, contentType, body };
}

/** Reads the bundle and style sheet once; their gzip is made off the event loop. */
export function loadDocsAssets(warn: (err: unknown) => void): DocsAssets {
  const bundle = Buffer.from(withoutSourceMap(readFileSync(join(DIST, "swagger-ui-bundle.js"), "utf8")), "utf8");
  const css = Buffer.from(withoutSourceMap(readFileSync(join(DIST, "swagger-ui.css"), "utf8")), "utf8");
  const assets = {
    bundle: asset("swagger-ui-bundle", "js", "text/javascript; charset=utf-8", prepareLarge(bundle, warn)),
    css: asset("swagger-ui", "css", "text/css; charset=utf-8", prepareLarge(css, warn)),
    init: asset("init", "js", "text/javascript; charset=utf-8", prepare(INITIALIZER)),
  };
  return { ...assets, byPath: new Map(Object.values(assets).map((a) => [a.path, a])) };
}
