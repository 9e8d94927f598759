import type { IncomingMessage } from "node:http";
import type { Response } from "express";

/** A POST's body, read before the transport gets it (to tell an initialize from the rest). */
export type ReadMessage = { kind: "message"; body: unknown } | { kind: "too_large" } | { kind: "not_json" };

/** Reads and parses a JSON body of at most `maxBytes`; a longer one is not read further. */
export async function readMessage(req: IncomingMessage, maxBytes: number): Promise<ReadMessage> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return { kind: "too_large" };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return { kind: "too_large" };
    chunks.push(chunk);
  }
  try {
    return { kind: "message", body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown };
  } catch {
    return { kind: "not_json" };
  }
}

/** A transport-level refusal as the MCP SDK's transport words its own: a JSON-RPC error with id null. */
export function sendRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: "2.0", error: { code, message }, id: null });
}

/** JSON-RPC's codes the transport answers with (the MCP SDK's own, so clients read them the same). */
export const RPC = { parseError: -32700, invalidRequest: -32600, serverError: -32000, sessionNotFound: -32001 } as const;
