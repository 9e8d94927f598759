import { createHmac, timingSafeEqual } from "node:crypto";
import { OAuthResource } from "@board/proto";
import { z } from "zod";

/** An authorization request that passed every check, waiting for the holder's consent. */
export const PendingAuthorization = z.object({
  client_id: z.string(),
  redirect_uri: z.string(),
  code_challenge: z.string(),
  resources: z.array(OAuthResource).min(1),
  scope: z.string(),
  state: z.string().optional(),
  /** Unix seconds: the form is refused after it. */
  exp: z.number().int(),
});
export type PendingAuthorization = z.infer<typeof PendingAuthorization>;

export type Unsealed = { ok: true; pending: PendingAuthorization } | { ok: false; reason: "request_invalid" | "request_expired" };

const mac = (key: Uint8Array, body: string) => createHmac("sha256", key).update(body, "utf8").digest();

/**
 * The consent form's hidden field: the checked request and its MAC, so the form can only
 * approve exactly the request that was checked (no parameter changed on the way, nothing
 * made up), on any replica, without storing a row per page view. Not secret: the page shows
 * what it says.
 */
export function sealAuthorization(key: Uint8Array, pending: PendingAuthorization): string {
  const body = Buffer.from(JSON.stringify(pending), "utf8").toString("base64url");
  return `${body}.${mac(key, body).toString("base64url")}`;
}

export function openAuthorization(key: Uint8Array, sealed: string, now: Date): Unsealed {
  const [body, tag, extra] = sealed.split(".");
  if (!body || !tag || extra !== undefined) return { ok: false, reason: "request_invalid" };
  const given = Buffer.from(tag, "base64url");
  const expected = mac(key, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "request_invalid" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return { ok: false, reason: "request_invalid" };
  }
  const pending = PendingAuthorization.safeParse(parsed);
  if (!pending.success) return { ok: false, reason: "request_invalid" };
  if (now.getTime() / 1000 >= pending.data.exp) return { ok: false, reason: "request_expired" };
  return { ok: true, pending: pending.data };
}
