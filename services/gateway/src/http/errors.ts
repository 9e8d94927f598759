import { ERROR_STATUS, type ErrorBody, type ErrorCode } from "@board/proto";
import { isBusError } from "@board/service-kit";
import type { Response } from "express";

type Extra = Omit<ErrorBody["error"], "code" | "message" | "status">;

/** The one error body of the API: { error: { code, message, status, ... } }. */
export function sendError(res: Response, code: ErrorCode, message: string, extra: Extra = {}, status = ERROR_STATUS[code]): void {
  const body: ErrorBody = { error: { code, message, status, ...extra } };
  if (extra.retry_after_seconds !== undefined) res.setHeader("Retry-After", String(extra.retry_after_seconds));
  res.status(status).type("application/json").setHeader("Cache-Control", "no-store").send(JSON.stringify(body));
}

const RETRY_SECONDS = 5;

/**
 * A failure of another service, as the client sees it: its 4xx as is; 503 and 504 as such
 * (worth a retry); any other 5xx as 502 with no detail of ours.
 */
export function sendUpstreamError(res: Response, err: unknown): void {
  if (isBusError(err)) {
    if (err.status >= 400 && err.status < 500) return sendError(res, err.code, messageFor(err.code), {}, err.status);
    if (err.status === 503)
      return sendError(res, err.code === "snapshot_unavailable" ? err.code : "service_unavailable", messageFor(err.code), {
        retry_after_seconds: RETRY_SECONDS,
      });
    if (err.status === 504) return sendError(res, "upstream_timeout", messageFor("upstream_timeout"), { retry_after_seconds: RETRY_SECONDS });
    if (err.status === 501) return sendError(res, "not_implemented", messageFor("not_implemented"));
  }
  sendError(res, "upstream_error", messageFor("upstream_error"), { retry_after_seconds: RETRY_SECONDS });
}

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  snapshot_unavailable: "The board has no published snapshot to serve yet. Retry shortly; see /api/board/status.",
  service_unavailable: "The service behind this read is unavailable. Retry with backoff; see /api/board/status.",
  upstream_timeout: "The service behind this read did not answer in time. Retry with backoff.",
  upstream_error: "The service behind this read failed. Retry with backoff; see /api/board/status.",
  not_implemented: "This read is not available yet.",
  invalid_request: "The request was refused.",
};

const messageFor = (code: ErrorCode) => MESSAGES[code] ?? code.replace(/_/g, " ");
