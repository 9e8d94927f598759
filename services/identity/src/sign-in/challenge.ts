import { SIGN_IN_SESSION_SECONDS, type SignInInfo } from "@board/proto";
import { formatSIWEMessage, formatSIWSMessage, type CompleteSIWxInfo } from "@x402/extensions/sign-in-with-x";
import { formatAlgorandMessage } from "./algorand.js";
import type { SignInFamily } from "./chains.js";
import type { SignInNonces } from "./nonce.js";

export const SIGN_IN_STATEMENT = "Sign in to read the board's free tier.";
export const SIGN_IN_VERSION = "1";

/**
 * A fresh challenge bound to our origin: the uri is the resource rebased onto our origin
 * (a 402 behind a proxy still names our public host), or our origin's root; the nonce
 * carries a MAC over its times and our domain, so verification needs no storage.
 */
export function signInInfo(nonces: SignInNonces, publicBaseUrl: URL, now: Date, resourceUrl?: string): SignInInfo {
  const uri = rebaseOntoOrigin(resourceUrl, publicBaseUrl);
  const domain = publicBaseUrl.host;
  const issuedAt = now.toISOString();
  const expirationTime = new Date(now.getTime() + SIGN_IN_SESSION_SECONDS * 1000).toISOString();
  return {
    domain,
    uri,
    version: SIGN_IN_VERSION,
    statement: SIGN_IN_STATEMENT,
    nonce: nonces.issue({ issuedAt, expirationTime, domain }),
    issuedAt,
    expirationTime,
    resources: [uri],
  };
}

function rebaseOntoOrigin(resourceUrl: string | undefined, publicBaseUrl: URL): string {
  const root = `${publicBaseUrl.origin}/`;
  if (resourceUrl === undefined) return root;
  let resource: URL;
  try {
    resource = new URL(resourceUrl);
  } catch {
    return root;
  }
  // Set the parts, never resolve a string: a path like "//elsewhere/x" must stay a path.
  const rebased = new URL(root);
  rebased.pathname = resource.pathname;
  rebased.search = resource.search;
  return rebased.toString();
}

/** The exact CAIP-122 text a wallet of this family signs for this challenge (same builders as verification). */
export function signInMessage(family: SignInFamily, info: CompleteSIWxInfo, address: string): string {
  switch (family) {
    case "evm":
      return formatSIWEMessage(info, address);
    case "solana":
      return formatSIWSMessage(info, address);
    case "algorand":
      return formatAlgorandMessage(info, address);
  }
}
