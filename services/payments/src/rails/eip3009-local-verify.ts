import type { ErrorCode } from "@board/proto";
import { getAddress, type Address, type Hex } from "viem";
import { transferAuthorizationDigest, type Eip3009Authorization, type Eip3009Terms } from "./eip3009.js";
import { eip3009Terms } from "./eip3009-terms.js";
import type { AnyPaymentPayload } from "./payload.js";

/** What a verification without the chain concluded. */
export type LocalVerdict =
  | { ok: true; authorization: Eip3009Authorization }
  | { ok: false; code: ErrorCode; detail: string }
  /** Not decidable here (a contract wallet's signature, or not an EIP-3009 payload): x402's facilitator decides. */
  | null;

/** The requirement a payment was matched to: v2 carries `amount`, v1 `maxAmountRequired`. */
export interface Eip3009Requirement {
  amount?: string;
  maxAmountRequired?: string;
  payTo: string;
  asset: string;
  extra?: Record<string, unknown>;
}

/** An EOA's (r, s, v) signature: 65 bytes. Anything else is a contract wallet's (ERC-1271, ERC-6492). */
const EOA_SIGNATURE = /^0x[0-9a-fA-F]{130}$/;
/** x402's facilitator wants this much validity left at verification (its `now + 6`). */
const VALID_BEFORE_MARGIN_SECONDS = 6n;

/** Who recovers the signer of a digest (libsecp256k1, or viem's pure JS): null when it cannot. */
export type Recover = (digest: Hex, signature: Hex) => Address | null | Promise<Address | null>;

/**
 * The EIP-3009 authorization of an exact EVM payload, its fields read as they will be sent:
 * null when the payload is not one an EOA signed (no authorization, or a signature that is not
 * 65 bytes: a contract wallet's), "malformed" when a field cannot be what EIP-3009 takes.
 */
export function readEip3009(payload: AnyPaymentPayload): Eip3009Authorization | "malformed" | null {
  const inner = payload.payload as { signature?: unknown; authorization?: unknown } | undefined;
  if (!inner?.authorization) return null;
  const signature = inner.signature;
  if (typeof signature !== "string" || !EOA_SIGNATURE.test(signature)) return null;
  const terms = eip3009Terms(payload);
  if (!terms) return "malformed";
  return { ...terms, from: getAddress(terms.from), to: getAddress(terms.to), signature: signature as Hex };
}

/**
 * The checks x402's exact EVM facilitator makes before it asks the chain, made here without it
 * (docs/decisions.md lists them): payload fields, recipient, validity window (valid before now
 * + 6 s, valid after not in the future), amount equal to the price, and the EIP-712 signature
 * of the payer recovered over the USDC domain of this chain. Scheme, network, asset and payTo
 * of the offer were matched already (x402/match.ts). What the facilitator asks the chain
 * (balance, nonce unused, token name and version) is asked once per batch by the batch's
 * simulation, and the chain's own result of each transfer is final.
 *
 * A 65-byte signature that does not recover to `from` is refused here: it never reaches the
 * facilitator or the chain's RPC, so junk payments cannot spend the RPC quota. (A contract
 * wallet signing with one 65-byte ECDSA signature is refused with it; smart wallets sign
 * ERC-1271 / ERC-6492 signatures of other lengths.) Those other lengths cannot be decided
 * without the chain: their terms are checked here, and only payments whose terms hold go to
 * the facilitator.
 */
export async function verifyEip3009Locally(
  payload: AnyPaymentPayload,
  requirement: Eip3009Requirement,
  chainId: number,
  recover: Recover,
  domain?: { name: string; version: string; verifyingContract: Address },
): Promise<LocalVerdict> {
  const authorization = readEip3009(payload);
  if (authorization === "malformed") return { ok: false, code: "payment_invalid_header", detail: "a field of the payment's authorization is malformed" };
  if (authorization === null) {
    const terms = eip3009Terms(payload);
    return (terms && termsRefusal({ ...terms, to: getAddress(terms.to) }, requirement)) ?? null;
  }
  const name = domain?.name ?? requirement.extra?.["name"];
  const version = domain?.version ?? requirement.extra?.["version"];
  if (typeof name !== "string" || typeof version !== "string") return termsRefusal(authorization, requirement) ?? null;

  const digest = transferAuthorizationDigest({ name, version, chainId, verifyingContract: domain?.verifyingContract ?? getAddress(requirement.asset) }, authorization);
  // In the facilitator's order: the signature first, then the terms it signed.
  if ((await recover(digest, authorization.signature)) !== authorization.from)
    return { ok: false, code: "payment_invalid_signature", detail: "the authorization is not signed by its payer" };
  return termsRefusal(authorization, requirement) ?? { ok: true, authorization };
}

/** The refusal of an authorization's terms (recipient, validity window, amount), or null when they hold. */
function termsRefusal(a: Pick<Eip3009Terms, "to" | "value" | "validAfter" | "validBefore">, requirement: Eip3009Requirement): LocalVerdict {
  if (getAddress(a.to) !== getAddress(requirement.payTo)) return { ok: false, code: "payment_pay_to_mismatch", detail: "the authorization pays another recipient" };
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (a.validBefore < now + VALID_BEFORE_MARGIN_SECONDS) return { ok: false, code: "payment_expired", detail: "the authorization has expired or lapses within seconds" };
  if (a.validAfter > now) return { ok: false, code: "payment_expired", detail: "the authorization is not valid yet" };
  const price = requirement.amount ?? requirement.maxAmountRequired;
  if (price === undefined || a.value !== BigInt(price)) return { ok: false, code: "payment_amount_mismatch", detail: "the authorization is not for the price" };
  return null;
}
