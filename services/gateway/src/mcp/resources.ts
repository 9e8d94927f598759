import { boardRead, ERROR_STATUS, MCP_RESOURCE_BY_URI, type ErrorBody, type ErrorCode, type McpResource } from "@board/proto";
import { requestBytes } from "@board/service-kit";
import { McpError, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { addressBurstKey, consume } from "../access/meter.js";
import { upstreamFailure } from "../http/errors.js";
import type { ReadDeps } from "../reads/read.js";
import type { McpCaller } from "./call-tool.js";

/** MCP's code for a resource the server does not have (server/resources, "Error Handling"). */
export const RESOURCE_NOT_FOUND = -32002;
/**
 * A refusal or failure of a read (burst spent, board unavailable): a JSON-RPC server error
 * whose data is the API's one error body, so an agent reads the same reason codes as over HTTP.
 */
export const READ_REFUSED = -32000;

/** The resource at `uri`, or MCP's resource-not-found error. */
export function resourceAt(uri: string): McpResource {
  const resource = MCP_RESOURCE_BY_URI.get(uri);
  if (!resource) throw new McpError(RESOURCE_NOT_FOUND, `There is no resource ${uri}; resources/list names them.`, { uri });
  return resource;
}

function refused(code: ErrorCode, message: string, extra: Partial<Omit<ErrorBody["error"], "code" | "message">> = {}): McpError {
  const body: ErrorBody = { error: { code, message, status: ERROR_STATUS[code], ...extra } };
  return new McpError(READ_REFUSED, message, body);
}

/**
 * resources/read: the view's JSON as the free tool of the same read answers it, within the
 * client address's anonymous burst, counted as a served read of its route (the delayed board's
 * under /mcp).
 */
export async function readResource(deps: ReadDeps, caller: McpCaller, uri: string): Promise<ReadResourceResult> {
  const resource = resourceAt(uri);
  let body: Uint8Array;
  try {
    const burst = await consume(deps.nc, deps.timeoutMs, deps.log, addressBurstKey(caller.address), "anonymous");
    if (!burst.granted)
      throw refused(burst.reason, "Too many reads at once. Pace reads sequentially and retry after the given seconds.", { retry_after_seconds: burst.retry_after_seconds });
    ({ body } = await requestBytes(deps.nc, boardRead, { view: resource.view, params: {}, encoding: "identity" }, { timeoutMs: deps.timeoutMs }));
  } catch (err) {
    if (err instanceof McpError) throw err;
    // A bus failure mid-read: the same codes HTTP gives, never our internals.
    const f = upstreamFailure(err);
    throw refused(f.code, f.message, { status: f.status, ...(f.retry_after_seconds !== undefined ? { retry_after_seconds: f.retry_after_seconds } : {}) });
  }
  deps.served(resource.route ?? "/mcp", "anonymous");
  return { contents: [{ uri, mimeType: resource.mimeType, text: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8") }] };
}
