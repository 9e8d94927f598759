import type { Credentials } from "@board/proto";
import type { IncomingMessage } from "node:http";

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return typeof v === "string" && v.length > 0 ? v : undefined;
};

/**
 * The credential headers of SPEC.md 5 a request carries, or null when it carries none.
 * X-Board-License-Key is deliberately not read (SPEC.md 5); Authorization: Payment is a
 * payment, not a credential.
 */
export function credentialsOf(req: IncomingMessage): Credentials | null {
  const creds: Credentials = {};
  const license = header(req, "x-license-key");
  if (license) creds.license_key = license.trim();
  const auth = header(req, "authorization");
  const bearer = auth ? /^Bearer[ \t]+(\S+)\s*$/i.exec(auth) : null;
  if (bearer?.[1]) creds.bearer = bearer[1];
  const siwx = header(req, "sign-in-with-x");
  if (siwx) creds.siwx = siwx.trim();
  const key = header(req, "x-board-key");
  if (key) creds.board_key = key.trim();
  return Object.keys(creds).length > 0 ? creds : null;
}

/** Authorization: Bearer with nothing usable after it is a malformed credential, not an absent one. */
export function hasMalformedBearer(req: IncomingMessage): boolean {
  const auth = header(req, "authorization");
  return auth !== undefined && /^Bearer\b/i.test(auth) && !/^Bearer[ \t]+\S+\s*$/i.test(auth);
}
