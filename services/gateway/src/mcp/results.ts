import { ERROR_STATUS, X402_MCP_RESPONSE_META, type ErrorBody, type ErrorCode } from "@board/proto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { WRAPPED_KEY } from "../discovery/tool-output.js";
import type { UpstreamFailure } from "../http/errors.js";

/**
 * A read served: the view as structuredContent (what the tool's outputSchema declares) and the
 * same JSON as text (the body HTTP would send) for hosts that read only content; any receipt
 * in _meta. `wrapped`: the body is not a JSON object, so it rides under WRAPPED_KEY.
 */
export function readResult(body: Uint8Array, wrapped: boolean, receipt?: unknown): CallToolResult {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  const value: unknown = JSON.parse(text);
  return {
    content: [{ type: "text", text }],
    structuredContent: wrapped ? { [WRAPPED_KEY]: value } : (value as Record<string, unknown>),
    ...(receipt !== undefined ? { _meta: { [X402_MCP_RESPONSE_META]: receipt } } : {}),
  };
}

/** A refusal or failure as a tool error: the API's one error body, so an agent reads the same codes as over HTTP. */
export function errorResult(code: ErrorCode, message: string, extra: Partial<Omit<ErrorBody["error"], "code" | "message">> = {}): CallToolResult {
  const body: ErrorBody = { error: { code, message, status: ERROR_STATUS[code], ...extra } };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body };
}

/**
 * x402's MCP transport (specs/transports-v2/mcp.md): the PaymentRequired in structuredContent
 * and, wrapped as x402/error, in content[0].text. A failed settlement adds its response.
 */
export function paymentRequiredResult(paymentRequired: Record<string, unknown>, message: string): CallToolResult {
  return {
    isError: true,
    structuredContent: paymentRequired,
    content: [{ type: "text", text: JSON.stringify({ "x402/error": { code: 402, message, data: paymentRequired } }) }],
  };
}

export function failureResult(f: UpstreamFailure): CallToolResult {
  return errorResult(f.code, f.message, { status: f.status, ...(f.retry_after_seconds !== undefined ? { retry_after_seconds: f.retry_after_seconds } : {}) });
}
