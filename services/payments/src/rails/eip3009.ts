import { authorizationTypes } from "@x402/evm";
import { hashTypedData, type Address, type Hex } from "viem";

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

/** The EIP-712 digest an EIP-3009 TransferWithAuthorization is signed over, in a token's domain (x402 and MPP alike). */
export function transferAuthorizationDigest(domain: { name: string; version: string; chainId: number; verifyingContract: Address }, a: Eip3009Terms): Hex {
  return hashTypedData({
    domain,
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: { from: a.from, to: a.to, value: a.value, validAfter: a.validAfter, validBefore: a.validBefore, nonce: a.nonce },
  });
}
