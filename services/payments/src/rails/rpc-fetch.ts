import { Agent, request } from "undici";

/**
 * The fetch viem's http transport calls for each JSON-RPC request, on undici's request() over
 * a keep-alive pool instead of the WHATWG fetch: a paid read makes about a dozen chain calls,
 * and fetch's Request/stream machinery cost several times the call itself (measured in the
 * bench: the payments process's CPU per paid read). Only what viem uses is kept: method,
 * headers, body, signal; status, headers and the body as text or JSON.
 */
export function rpcFetch(agent: Agent = new Agent({ keepAliveTimeout: 30_000, connections: 32 })): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init = {}) => {
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
