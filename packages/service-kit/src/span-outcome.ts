import { SpanStatusCode, type Span } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";

/** The status a failure carried (a bus error's Nats-Service-Error-Code, an HTTP status). */
export const ATTR_BUS_STATUS_CODE = "board.bus.status_code";

/**
 * Marks a span with a failure's reason code (error.type) and status. Only 5xx is a span
 * error: a 4xx is the caller's refusal (rate limited, payment refused), an expected outcome.
 */
export function markFailure(span: Span, code: string, status: number): void {
  if (!span.isRecording()) return;
  span.setAttribute(ATTR_ERROR_TYPE, code);
  span.setAttribute(ATTR_BUS_STATUS_CODE, status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}
