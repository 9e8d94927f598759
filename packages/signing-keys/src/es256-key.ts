import { createPrivateKey, sign, type KeyObject } from "node:crypto";
import { Jwk } from "@board/proto";
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey } from "jose";
import { z } from "zod";
import { decryptPrivateKey, encryptPrivateKey } from "./key-encryption.js";

/** An ES256 key as jose imports it. */
export type JoseKey = CryptoKey;

export interface NewSigningKey {
  kid: string;
  publicJwk: Jwk;
  privateKeyEnc: string;
}

/** A fresh P-256 key (ES256): its kid is the RFC 7638 thumbprint; its private half leaves here only encrypted. */
export async function generateSigningKey(keyEncryptionKey: Uint8Array): Promise<NewSigningKey> {
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub, "sha256");
  const publicJwk = Jwk.parse({ kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y, kid, alg: "ES256", use: "sig" });
  const privateJwk = await exportJWK(privateKey);
  return { kid, publicJwk, privateKeyEnc: encryptPrivateKey(keyEncryptionKey, kid, JSON.stringify(privateJwk)) };
}

export function importPublicKey(jwk: Jwk): Promise<JoseKey> {
  return importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, "ES256");
}

export async function importPrivateKey(keyEncryptionKey: Uint8Array, kid: string, privateKeyEnc: string): Promise<JoseKey> {
  const parsed = PrivateJwk.safeParse(JSON.parse(decryptPrivateKey(keyEncryptionKey, kid, privateKeyEnc)));
  if (!parsed.success) throw new Error(`signing key ${kid}: stored private key is not a P-256 JWK`);
  return importJWK(parsed.data, "ES256");
}

/**
 * The private half as node's own key object, for signing many small payloads synchronously
 * (receipts, one per paid read): no promise and no WebCrypto round trip per signature.
 */
export function importPrivateKeyObject(keyEncryptionKey: Uint8Array, kid: string, privateKeyEnc: string): KeyObject {
  const parsed = PrivateJwk.safeParse(JSON.parse(decryptPrivateKey(keyEncryptionKey, kid, privateKeyEnc)));
  if (!parsed.success) throw new Error(`signing key ${kid}: stored private key is not a P-256 JWK`);
  return createPrivateKey({ key: parsed.data, format: "jwk" });
}

/** An ES256 JWS signature (RFC 7518 3.4: r | s, 64 bytes) of `signingInput`, base64url. */
export function signEs256(privateKey: KeyObject, signingInput: Uint8Array): string {
  return sign("sha256", signingInput, { key: privateKey, dsaEncoding: "ieee-p1363" }).toString("base64url");
}

const PrivateJwk = z.object({ kty: z.literal("EC"), crv: z.literal("P-256"), x: z.string(), y: z.string(), d: z.string() });
