// The one place the client talks HTTP: URLs under the board's base URL, network failures
// turned into data, bodies checked against their proto schema.

import type { z } from "zod";
import { errorFromResponse, fail, networkError, ok, type Result } from "./errors.js";
import type { Query } from "./routes.js";

export class Http {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    readonly fetch: typeof globalThis.fetch = globalThis.fetch,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
  }

  url(path: string, query: Query = {}): string {
    // Commas stay readable (sym=AAPL,MSFT): they need no escaping in a query.
    const qs = new URLSearchParams(query).toString().replace(/%2C/gi, ",");
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`;
  }

  /** The response, whatever its status; a thrown fetch (nothing answered) is a network_error. */
  async send(url: string, init: RequestInit = {}, fetchImpl = this.fetch): Promise<Result<Response>> {
    try {
      return ok(await fetchImpl(url, init));
    } catch (err) {
      return { ok: false, error: networkError(url, err) };
    }
  }

  /** A JSON call that must answer 2xx with a body of `schema`. */
  async json<S extends z.ZodType>(url: string, schema: S, init: RequestInit = {}): Promise<Result<z.infer<S>>> {
    const sent = await this.send(url, init);
    if (!sent.ok) return sent;
    return parseBody(sent.value, schema);
  }
}

/** A 2xx body checked against its schema; any other status becomes the board's error. */
export async function parseBody<S extends z.ZodType>(res: Response, schema: S): Promise<Result<z.infer<S>>> {
  const read = await readBody(res, schema);
  return read.ok ? ok(read.value.body) : read;
}

/** As parseBody, with the JSON as sent (free-tier reads carry a `tier` block beside the view). */
export async function readBody<S extends z.ZodType>(res: Response, schema: S): Promise<Result<{ body: z.infer<S>; raw: Record<string, unknown> }>> {
  if (!res.ok) return { ok: false, error: await errorFromResponse(res) };
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    return fail("invalid_response", `the body of ${res.url || "the response"} is not JSON`, { status: res.status });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail("invalid_response", `the body is not the documented shape: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "unknown"}`, {
      status: res.status,
    });
  }
  return ok({ body: parsed.data as z.infer<S>, raw: json as Record<string, unknown> });
}
