import { CHARGE_INTENT, USDC_METHOD, UsdcChargeRequest } from "@board/proto";
import { Method, Receipt, type z } from "mppx";
import { AuthorizationPayloadSchema, challengeHash, networkOf } from "mppx/evm";
import type { Address, Hex } from "viem";
import type { Eip3009Authorization } from "../eip3009.js";

/**
 * The MPP `usdc` payment method, intent `charge` (SPEC.md 4.1 rule 5): the challenge asks for
 * an exact amount of USDC to a recipient on one EVM chain (its request, the contract the client
 * shares: @board/proto's UsdcChargeRequest); the credential is the payer's EIP-3009
 * transferWithAuthorization for exactly that, which our facilitator settles.
 *
 * The credential payload and the EIP-712 pieces are mppx's own `evm` method's (the same
 * EIP-3009 authorization), so clients that sign for `evm` sign the same bytes for `usdc`.
 */

/** The credential's `payload`: an EIP-3009 authorization and its signature (mppx `evm` shape). */
export const UsdcAuthorization = AuthorizationPayloadSchema;
export type UsdcAuthorization = z.infer<typeof UsdcAuthorization>;

export const usdcMethod = Method.from({
  name: USDC_METHOD,
  intent: CHARGE_INTENT,
  schema: {
    credential: { payload: UsdcAuthorization },
    request: UsdcChargeRequest,
  },
});

export function toEip3009(payload: UsdcAuthorization): Eip3009Authorization {
  return {
    from: payload.from as Address,
    to: payload.to as Address,
    value: BigInt(payload.value),
    validAfter: BigInt(payload.validAfter),
    validBefore: BigInt(payload.validBefore),
    nonce: payload.nonce as Hex,
    signature: payload.signature as Hex,
  };
}

/**
 * The EIP-3009 nonce a credential for this challenge must carry: keccak256(id ‖ realm), as
 * mppx's `evm` method. It binds the signed authorization to one challenge, so it cannot be
 * presented against another one.
 */
export function authorizationNonce(challenge: { id: string; realm: string }): Hex {
  return challengeHash(challenge);
}

export const networkOfChain = (chainId: number): string => networkOf(chainId);

/** The Payment-Receipt of a settled usdc charge (mppx's receipt, with the chain and quote id). */
export function usdcReceipt(parameters: { transaction: Hex; network: string; externalId?: string | undefined; timestamp?: string }): Receipt.Receipt {
  return Receipt.from({
    method: USDC_METHOD,
    reference: parameters.transaction,
    status: "success",
    timestamp: parameters.timestamp ?? new Date().toISOString(),
    ...(parameters.externalId !== undefined && { externalId: parameters.externalId }),
    network: parameters.network,
  });
}
