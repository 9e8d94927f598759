import http from "node:http";
import express, { type NextFunction, type Request, type Response } from "express";
import { withCors } from "./http/cors.js";
import { sendError } from "./http/errors.js";
import { exactRoutes } from "./http/exact-routes.js";
import { handleRoute, mountRoutes, type RouteDeps } from "./routing/routes.js";
import { httpTelemetry, requestTelemetry, type HttpTelemetryDeps } from "./http/telemetry.js";
import { mountDocsAndAudit } from "./pages/docs-audit-routes.js";

/** The HTTP edge, not yet listening. Express's own ETag is off: views carry their content hash from the board. */
export function createServer(deps: RouteDeps & { trustProxyHops: number; telemetry: HttpTelemetryDeps }): http.Server {
  const app = express();
  app.set("etag", false);
  app.set("x-powered-by", false);
  app.set("trust proxy", deps.trustProxyHops);
  const observe = requestTelemetry(deps.telemetry);
  // First: every request, routed or not, is traced and counted.
  app.use(httpTelemetry(observe));
  // Pages outside the route catalogue: before mountRoutes, whose last handler answers 404.
  mountDocsAndAudit(app, deps);
  mountRoutes(app, deps);
  const failed = (err: unknown, res: Response) => {
    deps.log.error({ err }, "request failed");
    if (!res.headersSent) sendError(res, "internal_error", "The request failed on our side. Retry with backoff.");
  };
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => failed(err, res));
  return http.createServer(withCors(exactRoutes(app, observe, (route, x) => handleRoute(route, deps, x), failed)));
}
