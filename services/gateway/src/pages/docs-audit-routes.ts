import type { Express } from "express";
import type { ReadDeps } from "../reads/read.js";
import { sendError } from "../http/errors.js";
import { AuditPages } from "./audit-pages.js";
import { DOCS_ASSETS_PATH, loadDocsAssets } from "./docs-assets.js";
import { DocsPages } from "./docs.js";

/**
 * GET and HEAD (express answers HEAD with GET's handler) of /docs, its hashed assets, and
 * /audit. The reference's files are read on its first view, not at start, so a gateway
 * nobody browses pays nothing for them.
 */
export function mountDocsAndAudit(app: Express, deps: ReadDeps): void {
  let docs: DocsPages | null = null;
  const docsPages = () => (docs ??= new DocsPages(loadDocsAssets((err) => deps.log.warn({ err }, "docs: compressing an asset failed"))));
  const audit = new AuditPages(deps, (err, message) => deps.log.warn({ err }, message));

  app.get("/docs", (req, res) => docsPages().servePage(req, res));
  app.get(`${DOCS_ASSETS_PATH}/:file`, (req, res) => {
    if (!docsPages().serveAsset(req, res, `${DOCS_ASSETS_PATH}/${req.params.file}`))
      sendError(res, "not_found", `There is no ${req.path}. The reference's files are named in /docs.`);
  });
  app.get("/audit", (req, res) => audit.serve(req, res));
}
