import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import { getBase58Codec, type Address } from "@solana/kit";

/** Ed25519 keypairs in Solana's 64-byte form, made and used with node:crypto. */

const base58 = getBase58Codec();

export interface SvmKeypair {
  address: Address;
  /** 32-byte seed followed by the 32-byte public key: what `createKeyPairSignerFromBytes` takes. */
  secretKey: Uint8Array;
  /** `secretKey` in base58, the form wallets export and configuration holds. */
  secretKeyBase58: string;
}

export function generateKeypair(): SvmKeypair {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  if (jwk.d === undefined || jwk.x === undefined) throw new Error("node:crypto exported an Ed25519 key without d or x");
  const seed = Buffer.from(jwk.d, "base64url");
  const publicKey = Buffer.from(jwk.x, "base64url");
  const secretKey = new Uint8Array(64);
  secretKey.set(seed, 0);
  secretKey.set(publicKey, 32);
  return {
    address: base58.decode(publicKey) as Address,
    secretKey,
    secretKeyBase58: base58.decode(secretKey),
  };
}

export function signEd25519(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
  const key = createPrivateKey({
    format: "jwk",
    key: {
      kty: "OKP",
      crv: "Ed25519",
      d: Buffer.from(secretKey.subarray(0, 32)).toString("base64url"),
      x: Buffer.from(secretKey.subarray(32, 64)).toString("base64url"),
    },
  });
  return new Uint8Array(sign(null, message, key));
}
