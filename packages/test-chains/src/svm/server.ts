import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { RpcError, RpcErrorCode, type RpcMethod } from "./rpc.js";

/**
 * JSON-RPC 2.0 over HTTP, as a Solana node serves it: POST on any path, single or batch
 * requests, positional params, and GET /health. u64 values (bigint in results) are written
 * as bare JSON numbers, beyond 2^53 too, as a node writes them.
 */

const MAX_BODY_BYTES = 1 << 20;

export interface JsonRpcServer {
  url: string;
  close(): Promise<void>;
}

export async function serveJsonRpc(methods: Record<string, RpcMethod>, host: string, port: number): Promise<JsonRpcServer> {
  const server = createServer((req, res) => {
    handle(methods, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  // Clients keep connections alive; idle ones must not hold up close().
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${bound}`,
    close: () => (closed ??= closeServer(server)),
  };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

async function handle(methods: Record<string, RpcMethod>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === "GET" && req.url === "/health") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    return;
  }
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST" }).end();
    return;
  }
  const body = await readBody(req);
  if (body === null) {
    res.writeHead(413).end();
    return;
  }
  let request: unknown;
  try {
    request = JSON.parse(body);
  } catch {
    send(res, errorResponse(null, new RpcError(RpcErrorCode.parseError, "Parse error")));
    return;
  }
  if (Array.isArray(request)) {
    send(res, request.length === 0 ? invalidRequest(null) : request.map((r) => respond(methods, r)));
  } else {
    send(res, respond(methods, request));
  }
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

type Id = string | number | null;

function respond(methods: Record<string, RpcMethod>, request: unknown): unknown {
  if (typeof request !== "object" || request === null) return invalidRequest(null);
  const { jsonrpc, method, params, id: rawId } = request as Record<string, unknown>;
  const id: Id = typeof rawId === "string" || typeof rawId === "number" ? rawId : null;
  if (jsonrpc !== "2.0" || typeof method !== "string") return invalidRequest(id);
  const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (handler === undefined) return errorResponse(id, new RpcError(RpcErrorCode.methodNotFound, "Method not found"));
  if (params !== undefined && params !== null && !Array.isArray(params)) {
    return errorResponse(id, new RpcError(RpcErrorCode.invalidParams, "Invalid params: expected an array"));
  }
  try {
    return { jsonrpc: "2.0", result: handler(params ?? []), id };
  } catch (error) {
    if (error instanceof RpcError) return errorResponse(id, error);
    // An unexpected failure is a bug in this chain: say so instead of passing it off as a node error.
    return errorResponse(
      id,
      new RpcError(RpcErrorCode.internalError, `Internal error: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
}

function invalidRequest(id: Id): unknown {
  return errorResponse(id, new RpcError(RpcErrorCode.invalidRequest, "Invalid request"));
}

function errorResponse(id: Id, error: RpcError): unknown {
  const body: Record<string, unknown> = { code: error.code, message: error.message };
  if (error.data !== undefined) body["data"] = error.data;
  return { jsonrpc: "2.0", error: body, id };
}

function send(res: ServerResponse, payload: unknown): void {
  res.writeHead(200, { "content-type": "application/json" }).end(stringify(payload));
}

const BIGINT_MARK = "\u0000bigint:";

/** JSON.stringify that writes bigint as a bare number. */
export function stringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `${BIGINT_MARK}${v}` : v)).replace(
    /"\\u0000bigint:(-?\d+)"/g,
    "$1",
  );
}
