import { freshnessHeaders } from "@board/market-calendar";
import { boardRead, type ViewName } from "@board/proto";
import { requestBytes, type NatsConnection } from "@board/service-kit";
import type { Request, Response } from "express";
import { preferredEncoding } from "./encoding.js";
import { sendUpstreamError } from "./errors.js";

export interface BoardViewDeps {
  nc: NatsConnection;
  timeoutMs: number;
}

/**
 * Serves one pre-rendered board view: asks the board over the bus for the bytes in the
 * encoding the client accepts, and passes them through with the freshness headers.
 */
export async function serveBoardView(
  deps: BoardViewDeps,
  req: Request,
  res: Response,
  view: ViewName,
  params: Record<string, string>,
): Promise<void> {
  let reply;
  try {
    reply = await requestBytes(
      deps.nc,
      boardRead,
      {
        view,
        params,
        encoding: preferredEncoding(req.headers["accept-encoding"]),
        ...(req.headers["if-none-match"] ? { if_none_match: req.headers["if-none-match"] } : {}),
      },
      { timeoutMs: deps.timeoutMs },
    );
  } catch (err) {
    return sendUpstreamError(res, err);
  }
  const { meta, body } = reply;
  res.setHeader("ETag", meta.etag);
  res.setHeader("Vary", "Accept-Encoding");
  res.setHeader("Cache-Control", "no-cache");
  for (const [name, value] of Object.entries(freshnessHeaders(meta.freshness))) res.setHeader(name, value);
  if (meta.status === 304) {
    res.status(304).end();
    return;
  }
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  if (meta.encoding === "gzip") res.setHeader("Content-Encoding", "gzip");
  res.setHeader("Content-Length", String(body.length));
  res.status(200).end(req.method === "HEAD" ? undefined : body);
}
