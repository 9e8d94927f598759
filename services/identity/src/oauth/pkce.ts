import { createHash, timingSafeEqual } from "node:crypto";

/** RFC 7636 4.2: an S256 challenge is base64url of a sha256, 43 characters. */
export const isS256Challenge = (s: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(s);

/** RFC 7636 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** Whether the verifier is the one the challenge was made from (S256; plain is never accepted). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier)) return false;
  const made = Buffer.from(createHash("sha256").update(verifier, "ascii").digest("base64url"));
  const expected = Buffer.from(challenge);
  return made.length === expected.length && timingSafeEqual(made, expected);
}
