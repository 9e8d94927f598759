import type { Request } from "express";

/** Bodies of the key and token endpoints are small; anything larger is refused unread. */
export const MAX_BODY_BYTES = 4096;

export type BodyResult<T> = { ok: true; value: T } | { ok: false; message: string };

/** Reads the raw body up to MAX_BODY_BYTES. */
async function readBody(req: Request): Promise<BodyResult<string>> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > MAX_BODY_BYTES) return { ok: false, message: `The body is larger than ${MAX_BODY_BYTES} bytes.` };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return { ok: false, message: `The body is larger than ${MAX_BODY_BYTES} bytes.` };
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

/**
 * An application/x-www-form-urlencoded body (RFC 6749 3.2). A parameter sent twice is
 * refused, as RFC 6749 3.1 requires.
 */
export async function readForm(req: Request): Promise<BodyResult<Record<string, string>>> {
  if (mediaType(req) !== "application/x-www-form-urlencoded") return { ok: false, message: "The token request must be application/x-www-form-urlencoded." };
  const raw = await readBody(req);
  if (!raw.ok) return raw;
  const form = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(raw.value)) {
    if (Object.hasOwn(form, name)) return { ok: false, message: `The parameter ${name} is sent more than once.` };
    form[name] = value;
  }
  return { ok: true, value: form };
}
