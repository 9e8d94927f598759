import type { Credentials } from "@board/proto";
import type { IncomingMessage } from "node:http";
import { CREDENTIAL_HEADERS, requestHeader } from "../http/headers.js";

/**
 * The credential headers of SPEC.md 5 a request carries, or null when it carries none.
 * X-Board-License-Key is deliberately not read (SPEC.md 5); Authorization: Payment is a
 * payment, not a credential.
 */
export function credentialsOf(req: IncomingMessage): Credentials | null {
  const creds: Credentials = {};
  const license = requestHeader(req.headers, CREDENTIAL_HEADERS.license);
  if (license) creds.license_key = license.trim();
  const auth = requestHeader(req.headers, CREDENTIAL_HEADERS.authorization);
  const bearer = auth ? /^Bearer[ \t]+(\S+)\s*$/i.exec(auth) : null;
  if (bearer?.[1]) creds.bearer = bearer[1];
  const siwx = requestHeader(req.headers, CREDENTIAL_HEADERS.signIn);
  if (siwx) creds.siwx = siwx.trim();
  const key = requestHeader(req.headers, CREDENTIAL_HEADERS.freeKey);
  if (key) creds.board_key = key.trim();
  return Object.keys(creds).length > 0 ? creds : null;
}

/** Authorization: Bearer with nothing usable after it is a malformed credential, not an absent one. */
export function hasMalformedBearer(req: IncomingMessage): boolean {
  const auth = requestHeader(req.headers, CREDENTIAL_HEADERS.authorization);
  return auth !== undefined && /^Bearer\b/i.test(auth) && !/^Bearer[ \t]+\S+\s*$/i.test(auth);
}
