import { ROUTES, viewFor, type Route } from "@board/proto";
import type { Express, Request, Response } from "express";
import { serveBoardView } from "./board-view.js";
import { sendError } from "./errors.js";
import { servePaidRead, type PaidReadDeps } from "./paid-read.js";
import { sendCatalogue } from "./payment-required.js";

/** Mounts every path of the route catalogue; what is not in it is a 404. */
export function mountRoutes(app: Express, deps: PaidReadDeps): void {
  for (const route of ROUTES) app.all(route.path, (req, res) => handle(route, deps, req, res));
  app.use((req: Request, res: Response) => sendError(res, "not_found", `There is no ${req.path}. The catalogue of reads is at /openapi.json and /llms.txt.`));
}

async function handle(route: Route, deps: PaidReadDeps, req: Request, res: Response): Promise<void> {
  const allowed = route.methods.includes("GET") ? [...route.methods, "HEAD"] : [...route.methods];
  if (!allowed.includes(req.method as (typeof allowed)[number])) {
    res.setHeader("Allow", allowed.join(", "));
    return sendError(res, "method_not_allowed", `${route.path} accepts ${allowed.join(", ")}.`, { allowed_methods: allowed });
  }
  const query = route.query.safeParse(req.query);
  if (!query.success) {
    const issue = query.error.issues[0];
    const param = String(issue?.path[0] ?? "query");
    return sendError(res, "invalid_query", `Query parameter '${param}': ${issue?.message ?? "invalid"}.`, { param });
  }
  const { view, free } = viewFor(route, query.data);
  if (route.path === "/api") return sendCatalogue(deps, res);
  if (view && free) return serveBoardView(deps, req, res, view, stringParams(query.data));
  if (route.kind === "paid" && view) return servePaidRead(deps, req, res, route, view, stringParams(query.data));
  sendError(res, "not_implemented", `${route.path} is not available yet.`);
}

function stringParams(q: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(q)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]),
  );
}
