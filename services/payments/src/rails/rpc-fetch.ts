import { Agent, request } from "undici";

/** The JSON-RPC method names in a request body (one, or several in a batch). */
const METHOD = /"method":"([A-Za-z0-9_]+)"/g;

/**
 * The fetch viem's http transport calls for each JSON-RPC request, on undici's request() over
 * a keep-alive pool instead of the WHATWG fetch: a paid read makes about a dozen chain calls,
 * and fetch's Request/stream machinery cost several times the call itself (measured in the
 * bench: the payments process's CPU per paid read). Only what viem uses is kept: method,
 * headers, body, signal; status, headers and the body as text or JSON. `onCall` is told each
 * JSON-RPC method sent (the chain calls per paid read are a figure of the bench).
 */
export function rpcFetch(
  agent: Agent = new Agent({ keepAliveTimeout: 30_000, connections: 32 }),
  onCall: (method: string) => void = () => undefined,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
    if (typeof init.body === "string") for (const m of init.body.matchAll(METHOD)) onCall(m[1] as string);
    const url = typeof input === "string" || input instanceof URL ? input : input.url;
    const res = await request(url, {
      dispatcher: agent,
      method: (init.method ?? "GET") as "GET" | "POST",
      headers: init.headers as Record<string, string> | undefined,
      body: init.body as string | undefined,
      signal: init.signal ?? undefined,
    });
    const body = await res.body.arrayBuffer();
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (typeof value === "string") headers.set(name, value);
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    }
    return new Response(res.statusCode === 204 || res.statusCode === 304 ? null : body, { status: res.statusCode, headers });
  };
}
