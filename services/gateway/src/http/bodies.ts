import type { Request } from "express";

/** Bodies of the key and token endpoints are small; anything larger is refused unread. */
export const MAX_BODY_BYTES = 4096;
/** A consent form carries the sealed authorization request (state and redirect URI inside it), so it may be larger. */
export const MAX_FORM_BYTES = 16 * 1024;

export type BodyResult<T> = { ok: true; value: T } | { ok: false; message: string };

/** Reads the raw body up to `max` bytes. */
async function readBody(req: Request, max = MAX_BODY_BYTES): Promise<BodyResult<string>> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > max) return { ok: false, message: `The body is larger than ${max} bytes.` };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return { ok: false, message: `The body is larger than ${max} bytes.` };
    chunks.push(chunk);
  }
  return { ok: true, value: Buffer.concat(chunks).toString("utf8") };
}

const mediaType = (req: Request) => (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();

/** A JSON object body, with a message naming what is wrong when it is not one. */
export async function readJsonObject(req: Request): Promise<BodyResult<Record<string, unknown>>> {
  if (mediaType(req) !== "application/json") return { ok: false, message: "Send the body as JSON with Content-Type: application/json." };
  const raw = await readBody(req);
  if (!raw.ok) return raw;
  let value: unknown;
  try {
    value = JSON.parse(raw.value);
  } catch {
    return { ok: false, message: "The body is not valid JSON." };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, message: "The body must be a JSON object." };
  return { ok: true, value: value as Record<string, unknown> };
}

/** Form or query parameters: each once, except the few a standard lets repeat (RFC 8707's resource). */
export interface Params {
  one: Record<string, string>;
  many: Record<string, string[]>;
}

/**
 * Parameters of a form body or a query string. A parameter sent twice is refused, as RFC
 * 6749 3.1 requires, unless it is named in `repeatable`.
 */
export function readParams(encoded: string, repeatable: readonly string[] = []): BodyResult<Params> {
  const one = Object.create(null) as Record<string, string>;
  const many = Object.create(null) as Record<string, string[]>;
  for (const [name, value] of new URLSearchParams(encoded)) {
    if (repeatable.includes(name)) {
      (many[name] ??= []).push(value);
      continue;
    }
    if (Object.hasOwn(one, name)) return { ok: false, message: `The parameter ${name} is sent more than once.` };
    one[name] = value;
  }
  return { ok: true, value: { one, many } };
}

/** An application/x-www-form-urlencoded body (RFC 6749 3.2), read as readParams reads a query. */
export async function readForm(req: Request, opts: { repeatable?: readonly string[]; maxBytes?: number; what?: string } = {}): Promise<BodyResult<Params>> {
  if (mediaType(req) !== "application/x-www-form-urlencoded") return { ok: false, message: `The ${opts.what ?? "token request"} must be application/x-www-form-urlencoded.` };
  const raw = await readBody(req, opts.maxBytes);
  if (!raw.ok) return raw;
  return readParams(raw.value, opts.repeatable);
}
