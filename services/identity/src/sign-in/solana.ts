import { createPublicKey, verify as verifySignature } from "node:crypto";
import { decodeBase58 } from "@x402/extensions/sign-in-with-x";

const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/**
 * Solana signMessage: ed25519 over the SIWS message bytes, signature base58, the public key
 * is the address. Checked with node:crypto (~80 us) rather than the library's tweetnacl path
 * (~8 ms): a forged header is never memoized, so its cost is what a flood of them would buy.
 */
export function verifySolanaSignature(message: string, address: string, signatureBase58: string): boolean {
  let publicKey: Uint8Array;
  let signature: Uint8Array;
  try {
    publicKey = decodeBase58(address);
    signature = decodeBase58(signatureBase58);
  } catch {
    return false;
  }
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: "der", type: "spki" });
    return verifySignature(null, Buffer.from(message, "utf8"), key, signature);
  } catch {
    return false;
  }
}
