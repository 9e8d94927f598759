import type { Address, Hex } from "viem";
import type { Eip3009Terms } from "./eip3009.js";
import type { AnyPaymentPayload } from "./payload.js";

interface Eip3009Payload {
  authorization?: { from?: unknown; to?: unknown; value?: unknown; validAfter?: unknown; validBefore?: unknown; nonce?: unknown };
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const NONCE = /^0x[0-9a-fA-F]{64}$/;
/** A uint256 in decimal, as EIP-3009's fields travel in x402 payloads. */
const UINT = /^\d{1,78}$/;

/**
 * The EIP-3009 authorization inside a v1 or v2 exact payload, its fields as sent (addresses
 * in the payer's spelling), or null when there is none or any of its fields is malformed: the
 * facilitator would otherwise fail on it (BigInt of "x") as if the chain were unavailable,
 * where the client's payload is at fault.
 */
export function eip3009Terms(payload: AnyPaymentPayload): Eip3009Terms | null {
  const a = (payload.payload as Eip3009Payload | undefined)?.authorization;
  if (!a || typeof a.from !== "string" || typeof a.to !== "string" || typeof a.nonce !== "string") return null;
  if (!ADDRESS.test(a.from) || !ADDRESS.test(a.to) || !NONCE.test(a.nonce)) return null;
  for (const field of [a.value, a.validAfter, a.validBefore]) if (typeof field !== "string" || !UINT.test(field)) return null;
  return {
    from: a.from as Address,
    to: a.to as Address,
    value: BigInt(a.value as string),
    validAfter: BigInt(a.validAfter as string),
    validBefore: BigInt(a.validBefore as string),
    nonce: a.nonce as Hex,
  };
}
