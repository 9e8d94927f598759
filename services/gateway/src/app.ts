import express, { type NextFunction, type Request, type Response } from "express";
import { sendError } from "./http/errors.js";
import type { ReadDeps } from "./http/read.js";
import { mountRoutes } from "./http/routes.js";
import { httpTelemetry, type HttpTelemetryDeps } from "./http/telemetry.js";

/** The HTTP edge. Express's own ETag is off: views carry their content hash from the board. */
export function createApp(deps: ReadDeps & { trustProxyHops: number; telemetry: HttpTelemetryDeps }) {
  const app = express();
  app.set("etag", false);
  app.set("x-powered-by", false);
  app.set("trust proxy", deps.trustProxyHops);
  // First: every request, routed or not, is traced and counted.
  app.use(httpTelemetry(deps.telemetry));
  mountRoutes(app, deps);
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    deps.log.error({ err }, "request failed");
    if (!res.headersSent) sendError(res, "internal_error", "The request failed on our side. Retry with backoff.");
  });
  return app;
}
