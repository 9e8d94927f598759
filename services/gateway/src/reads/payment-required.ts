import { MAX_RESOURCE_QUERY_CHARS, paymentsCatalogue, paymentsRequirements, type Route } from "@board/proto";
import { request } from "@board/service-kit";
import type { Request, Response } from "express";
import type { BoardViewDeps } from "./board-view.js";
import { sendUpstreamError } from "../http/errors.js";

/**
 * The 402 of a paid route, as payments builds it (x402 v2 header, v1-dialect body with the
 * v2 requirements inside, the MPP challenge), optionally naming why a payment was refused.
 */
export async function sendPaymentRequired(
  deps: BoardViewDeps,
  req: Request,
  res: Response,
  route: Route,
  refusal?: { code: string; message?: string; problem?: boolean },
): Promise<void> {
  let reply;
  try {
    reply = await request(
      deps.nc,
      paymentsRequirements,
      {
        path: route.path,
        query: queryString(req),
        ...(refusal ? { error: refusal.code, ...(refusal.message ? { message: refusal.message } : {}), ...(refusal.problem ? { problem: true } : {}) } : {}),
      },
      { timeoutMs: deps.timeoutMs },
    );
  } catch (err) {
    return sendUpstreamError(res, err);
  }
  const { "Content-Type": contentType = "application/json", ...headers } = reply.headers;
  // Readable by a page of another origin: every answer exposes them (cors.ts).
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(402).type(contentType).setHeader("Cache-Control", "no-store").send(req.method === "HEAD" ? undefined : reply.body);
}

/** GET /api: the whole catalogue of offers as one 402. */
export async function sendCatalogue(deps: BoardViewDeps, res: Response): Promise<void> {
  let reply;
  try {
    reply = await request(deps.nc, paymentsCatalogue, {}, { timeoutMs: deps.timeoutMs });
  } catch (err) {
    return sendUpstreamError(res, err);
  }
  res.status(402).type("application/json").setHeader("Cache-Control", "no-store").send(reply.body);
}

/**
 * The request's query string as the paid read's resource URL carries it. One longer than the
 * bus contract takes (a cache-buster, or garbage) is left out of the URL rather than failing
 * the read: the board reads the validated parameters, and payments binds a payment to the path.
 */
export function queryString(req: Request): string {
  const i = req.originalUrl.indexOf("?");
  const query = i < 0 ? "" : req.originalUrl.slice(i + 1);
  return query.length > MAX_RESOURCE_QUERY_CHARS ? "" : query;
}
