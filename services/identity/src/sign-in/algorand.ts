import { createPublicKey, verify as verifySignature } from "node:crypto";
import type { CompleteSIWxInfo } from "@x402/extensions/sign-in-with-x";
import { decodeAddress, SIGN_BYTES_PREFIX } from "algosdk";

/** ASN.1 SubjectPublicKeyInfo header of a raw 32-byte Ed25519 key (RFC 8410). */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/**
 * The CAIP-122 message for an Algorand account: @x402/extensions' SIWS layout
 * (formatSIWSMessage) with the Algorand account named; Chain ID is the CAIP-2 reference.
 */
export function formatAlgorandMessage(info: CompleteSIWxInfo, address: string): string {
  const lines = [`${info.domain} wants you to sign in with your Algorand account:`, address, ""];
  if (info.statement) lines.push(info.statement, "");
  lines.push(
    `URI: ${info.uri}`,
    `Version: ${info.version}`,
    `Chain ID: ${info.chainId.slice(info.chainId.indexOf(":") + 1)}`,
    `Nonce: ${info.nonce}`,
    `Issued At: ${info.issuedAt}`,
  );
  if (info.expirationTime) lines.push(`Expiration Time: ${info.expirationTime}`);
  if (info.notBefore) lines.push(`Not Before: ${info.notBefore}`);
  if (info.requestId) lines.push(`Request ID: ${info.requestId}`);
  if (info.resources && info.resources.length > 0) {
    lines.push("Resources:");
    for (const resource of info.resources) lines.push(`- ${resource}`);
  }
  return lines.join("\n");
}

/**
 * Ed25519 over "MX" + utf8(message), against the public key inside the address; the
 * signature is base64 of 64 bytes. The "MX" prefix is what algosdk.signBytes / verifyBytes
 * and Algorand wallets' arbitrary-byte signing produce, and it is Algorand's domain
 * separation: signed bytes starting "MX" can never be a transaction ("TX") signature, so a
 * sign-in signature cannot be replayed as a payment and vice versa. A raw signature of the
 * message without the prefix is refused.
 */
export function verifyAlgorandSignature(message: string, address: string, signatureBase64: string): boolean {
  if (!/^[A-Za-z0-9+/]{86}==$/.test(signatureBase64)) return false;
  const signature = Buffer.from(signatureBase64, "base64");
  let publicKey: Uint8Array;
  try {
    publicKey = decodeAddress(address).publicKey;
  } catch {
    return false;
  }
  const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: "der", type: "spki" });
  const signed = Buffer.concat([SIGN_BYTES_PREFIX, Buffer.from(message, "utf8")]);
  try {
    return verifySignature(null, signed, key, signature);
  } catch {
    return false;
  }
}
