import { ERROR_STATUS, ErrorCode, type ErrorBody } from "@board/proto";
import { isBusError } from "@board/service-kit";
import type { Response } from "express";
import { noteErrorCode } from "./telemetry.js";

type Extra = Omit<ErrorBody["error"], "code" | "message" | "status">;

/** The one error body of the API: { error: { code, message, status, ... } }. */
export function sendError(res: Response, code: ErrorCode, message: string, extra: Extra = {}, status = ERROR_STATUS[code]): void {
  const body: ErrorBody = { error: { code, message, status, ...extra } };
  noteErrorCode(res, code);
  if (extra.retry_after_seconds !== undefined) res.setHeader("Retry-After", String(extra.retry_after_seconds));
  res.status(status).type("application/json").setHeader("Cache-Control", "no-store").send(JSON.stringify(body));
}

const RETRY_SECONDS = 5;

/** A failure of another service, as a client sees it (HTTP or MCP). */
export interface UpstreamFailure {
  code: ErrorCode;
  message: string;
  status: number;
  retry_after_seconds?: number;
  param?: string;
}

/**
 * Its 4xx as is; 503 and 504 as such (worth a retry); any other 5xx as 502 with no detail
 * of ours.
 */
export function upstreamFailure(err: unknown): UpstreamFailure {
  if (isBusError(err)) {
    const code = ErrorCode.safeParse(err.code);
    if (err.status >= 400 && err.status < 500 && code.success) {
      // A refusal the service worded for the client (a history read's nearest sessions, the oldest board kept): passed on as written.
      if (err.worded) return { code: code.data, message: err.message, status: err.status, ...(err.param !== undefined && { param: err.param }) };
      return { code: code.data, message: messageFor(code.data), status: err.status };
    }
    if (err.status === 503) {
      const code = err.code === "snapshot_unavailable" ? "snapshot_unavailable" : "service_unavailable";
      return { code, message: messageFor(code), status: 503, retry_after_seconds: RETRY_SECONDS };
    }
    if (err.status === 504) return { code: "upstream_timeout", message: messageFor("upstream_timeout"), status: 504, retry_after_seconds: RETRY_SECONDS };
    if (err.status === 501) return { code: "not_implemented", message: messageFor("not_implemented"), status: 501 };
  }
  return { code: "upstream_error", message: messageFor("upstream_error"), status: 502, retry_after_seconds: RETRY_SECONDS };
}

export function sendUpstreamError(res: Response, err: unknown): void {
  const { code, message, status, retry_after_seconds, param } = upstreamFailure(err);
  sendError(res, code, message, { ...(retry_after_seconds !== undefined && { retry_after_seconds }), ...(param !== undefined && { param }) }, status);
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
