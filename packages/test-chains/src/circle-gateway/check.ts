import { getAddress, isAddress, isAddressEqual, isHex, recoverTypedDataAddress, type Address, type Hex } from "viem";
import {
  GATEWAY_BATCHED_NAME,
  GATEWAY_BATCHED_VERSION,
  transferWithAuthorizationTypes,
  type GatewayNetwork,
} from "./network.js";

/**
 * The read-only checks Circle's Gateway runs on an x402 batched payment, in the order its API
 * reference lists them (scheme, network, token, signature, time window, address/amount), with
 * its reason codes. Balance and nonce are settle-time checks (ledger.ts).
 */

/** Circle's documented errorReason / invalidReason values for /v1/x402/verify and /settle. */
export const GATEWAY_REASONS = [
  "unsupported_scheme",
  "unsupported_network",
  "unsupported_asset",
  "invalid_payload",
  "address_mismatch",
  "amount_mismatch",
  "invalid_signature",
  "authorization_not_yet_valid",
  "authorization_expired",
  "authorization_validity_too_short",
  "self_transfer",
  "insufficient_balance",
  "nonce_already_used",
  "unsupported_domain",
  "wallet_not_found",
] as const;
export type GatewayReason = (typeof GATEWAY_REASONS)[number];

export interface Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

export type CheckResult =
  | { ok: true; authorization: Authorization }
  | { ok: false; reason: GatewayReason; payer?: Address };

export interface CheckContext {
  network: GatewayNetwork;
  minValiditySeconds: number;
  /** Unix seconds. */
  now: number;
}

const UINT = /^\d{1,78}$/;

export async function checkPayment(paymentPayload: unknown, requirements: unknown, ctx: CheckContext): Promise<CheckResult> {
  if (!isRecord(requirements) || !isRecord(paymentPayload)) return fail("invalid_payload");
  if (requirements.scheme !== "exact") return fail("unsupported_scheme");
  if (requirements.network !== ctx.network.network) return fail("unsupported_network");
  if (typeof requirements.asset !== "string" || !sameAddress(requirements.asset, ctx.network.usdc)) {
    return fail("unsupported_asset");
  }
  const amount = uint(requirements.amount);
  const payTo = address(requirements.payTo);
  if (amount === undefined || payTo === undefined) return fail("invalid_payload");

  const authorization = parseAuthorization(paymentPayload.payload);
  if (authorization === undefined) return fail("invalid_payload");
  const { from } = authorization;
  const signature = isRecord(paymentPayload.payload) ? paymentPayload.payload.signature : undefined;
  if (!isHex(signature) || !(await signedBy(authorization, signature, ctx.network, from))) {
    return fail("invalid_signature", from);
  }

  const now = BigInt(ctx.now);
  if (now < authorization.validAfter) return fail("authorization_not_yet_valid", from);
  if (authorization.validBefore <= now) return fail("authorization_expired", from);
  if (authorization.validBefore - now < BigInt(ctx.minValiditySeconds)) {
    return fail("authorization_validity_too_short", from);
  }
  if (!isAddressEqual(authorization.to, payTo)) return fail("address_mismatch", from);
  // "exact": the signed value is the price, no more and no less.
  if (authorization.value !== amount) return fail("amount_mismatch", from);
  if (isAddressEqual(from, authorization.to)) return fail("self_transfer", from);
  return { ok: true, authorization };
}

function parseAuthorization(payload: unknown): Authorization | undefined {
  if (!isRecord(payload) || !isRecord(payload.authorization)) return undefined;
  const a = payload.authorization;
  const from = address(a.from);
  const to = address(a.to);
  const value = uint(a.value);
  const validAfter = uint(a.validAfter);
  const validBefore = uint(a.validBefore);
  const nonce = a.nonce;
  if (from === undefined || to === undefined || value === undefined || validAfter === undefined || validBefore === undefined) {
    return undefined;
  }
  if (value === 0n || !isHex(nonce) || nonce.length !== 66) return undefined;
  return { from, to, value, validAfter, validBefore, nonce: nonce.toLowerCase() as Hex };
}

async function signedBy(authorization: Authorization, signature: Hex, network: GatewayNetwork, expected: Address): Promise<boolean> {
  try {
    const signer = await recoverTypedDataAddress({
      domain: {
        name: GATEWAY_BATCHED_NAME,
        version: GATEWAY_BATCHED_VERSION,
        chainId: network.chainId,
        verifyingContract: network.gatewayWallet,
      },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: authorization,
      signature,
    });
    return isAddressEqual(signer, expected);
  } catch {
    // A malformed signature (wrong length, bad v) recovers nothing: it is not the payer's.
    return false;
  }
}

function fail(reason: GatewayReason, payer?: Address): CheckResult {
  return payer === undefined ? { ok: false, reason } : { ok: false, reason, payer };
}

function uint(value: unknown): bigint | undefined {
  return typeof value === "string" && UINT.test(value) ? BigInt(value) : undefined;
}

function address(value: unknown): Address | undefined {
  return typeof value === "string" && isAddress(value, { strict: false }) ? getAddress(value) : undefined;
}

function sameAddress(a: string, b: Address): boolean {
  return isAddress(a, { strict: false }) && isAddressEqual(a, b);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
