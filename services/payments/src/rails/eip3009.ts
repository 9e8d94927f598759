import { authorizationTypes } from "@x402/evm";
import { bytesToHex, domainSeparator, hexToBytes, keccak256, stringToBytes, type Address, type Hex } from "viem";

/**
 * The EIP-3009 TransferWithAuthorization both x402's Base rails and the MPP `usdc` method pay
 * with. It lives apart from either so each imports it one way: rails/mpp/ uses it, and the x402
 * side (local verification, the payload's terms) needs nothing of rails/mpp/.
 */

/** An authorization with its numbers as numbers, for the chain. */
export interface Eip3009Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
}

/** What an EIP-3009 TransferWithAuthorization signs: the authorization without its signature. */
export type Eip3009Terms = Omit<Eip3009Authorization, "signature">;

/** TransferWithAuthorization's EIP-712 type string, from the very field list clients sign with. */
const TRANSFER_TYPE = `TransferWithAuthorization(${authorizationTypes.TransferWithAuthorization.map((f) => `${f.type} ${f.name}`).join(",")})`;
const TRANSFER_TYPE_HASH = keccak256(stringToBytes(TRANSFER_TYPE), "bytes");
const UINT256_LIMIT = 1n << 256n;

/** Domain separators by domain: a rail has one or two tokens, so this stays a handful. */
const separators = new Map<string, Uint8Array>();
const SEPARATORS_KEPT = 64;

function separatorOf(domain: { name: string; version: string; chainId: number; verifyingContract: Address }): Uint8Array {
  const key = `${domain.chainId}\n${domain.verifyingContract.toLowerCase()}\n${domain.name}\n${domain.version}`;
  let got = separators.get(key);
  if (!got) {
    if (separators.size >= SEPARATORS_KEPT) separators.clear();
    got = hexToBytes(domainSeparator({ domain }));
    separators.set(key, got);
  }
  return got;
}

/** Writes `hex` (exactly `size` bytes) right-aligned in the 32-byte word at `at`. */
function putBytes(word: Uint8Array, at: number, hex: Hex, size: number): void {
  const bytes = hexToBytes(hex);
  if (bytes.length !== size) throw new RangeError(`expected ${size} bytes, got ${bytes.length}`);
  word.set(bytes, at + 32 - size);
}

/** Writes a uint256 big-endian in the 32-byte word at `at`. */
function putUint256(word: Uint8Array, at: number, value: bigint): void {
  if (value < 0n || value >= UINT256_LIMIT) throw new RangeError("a uint256 is out of range");
  let v = value;
  for (let i = at + 31; i >= at && v > 0n; i--) {
    word[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/**
 * The EIP-712 digest an EIP-3009 TransferWithAuthorization is signed over, in a token's domain
 * (x402 and MPP alike): keccak256(0x1901 ‖ domain separator ‖ hashStruct(terms)). Encoded by
 * hand, the separator kept per domain: viem's hashTypedData walks and validates the types on
 * every call (about 0.5 ms of a paid read's CPU, profiled); test/rails/eip3009.test.ts holds this
 * to hashTypedData on random terms and domains.
 */
export function transferAuthorizationDigest(domain: { name: string; version: string; chainId: number; verifyingContract: Address }, a: Eip3009Terms): Hex {
  const struct = new Uint8Array(32 * 7);
  struct.set(TRANSFER_TYPE_HASH, 0);
  putBytes(struct, 32, a.from, 20);
  putBytes(struct, 64, a.to, 20);
  putUint256(struct, 96, a.value);
  putUint256(struct, 128, a.validAfter);
  putUint256(struct, 160, a.validBefore);
  putBytes(struct, 192, a.nonce, 32);
  const message = new Uint8Array(2 + 32 + 32);
  message[0] = 0x19;
  message[1] = 0x01;
  message.set(separatorOf(domain), 2);
  message.set(keccak256(struct, "bytes"), 34);
  return bytesToHex(keccak256(message, "bytes"));
}
