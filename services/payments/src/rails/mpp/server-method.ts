import { USDC_DECIMALS, type Eip712Token, type UsdcChargeRequest } from "@board/proto";
import { Method } from "mppx";
import { authorizationDomain, toSource } from "mppx/evm";
import { getAddress, recoverAddress, type Address, type Hex } from "viem";
import { transferAuthorizationDigest, type Eip3009Authorization } from "../eip3009.js";
import { authorizationNonce, networkOfChain, toEip3009, usdcMethod, usdcReceipt } from "./method.js";
import { UsdcRefusal, type MppReason } from "./reasons.js";

/** Where an authorization is to be checked or settled. */
export interface AuthorizationTarget {
  token: Address;
  chainId: number;
}

export type AuthorizationCheck = { ok: true } | { ok: false; reason: MppReason; detail: string };

/**
 * The chain's view of an authorization that is already known to be well formed and signed:
 * unused nonce, enough balance. Reads only. Throws when the chain cannot be asked.
 */
export type VerifyAuthorization = (authorization: Eip3009Authorization, target: AuthorizationTarget) => Promise<AuthorizationCheck>;

export type SettlementOutcome = { ok: true; transaction: Hex } | { ok: false; reason: MppReason; detail: string; transaction?: Hex };

/**
 * Submits transferWithAuthorization and waits for it. Resolves with a definite outcome (mined,
 * or refused/reverted); throws only when the outcome is unknown (sent, no receipt).
 */
export type SettleAuthorization = (authorization: Eip3009Authorization, target: AuthorizationTarget) => Promise<SettlementOutcome>;

export interface UsdcChargeConfig {
  chainId: number;
  /** The USDC contract. */
  currency: Address;
  /** Our payTo. */
  recipient: Address;
  eip712: Eip712Token;
  verifyAuthorization: VerifyAuthorization;
  settleAuthorization: SettleAuthorization;
}

/** The request fields every challenge takes from the configuration; a route gives only its amount. */
type UsdcDefaults = Pick<UsdcChargeRequest, "currency" | "recipient" | "methodDetails">;

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The server side of the usdc method: `validate` (non-mutating: binding, signature, chain
 * reads) and `broadcast` (settlement), which mppx's validateCredential / broadcastCredential
 * call after their own checks (HMAC, expiry, route binding).
 */
export function usdcCharge(config: UsdcChargeConfig) {
  const currency = getAddress(config.currency);
  const recipient = getAddress(config.recipient);
  const network = networkOfChain(config.chainId);
  const target: AuthorizationTarget = { token: currency, chainId: config.chainId };

  return Method.toServer<typeof usdcMethod, UsdcDefaults>(usdcMethod, {
    defaults: {
      currency,
      recipient,
      methodDetails: { chainId: config.chainId, network, decimals: USDC_DECIMALS, eip712: config.eip712 },
    },

    async validate({ credential }) {
      const request = credential.challenge.request;
      const payload = credential.payload;
      // mppx pins these against our route request already; repeated here so the method is
      // safe on its own (Method.validateCredential does no route binding).
      if (!sameAddress(request.currency, currency)) throw new UsdcRefusal("payment_asset_mismatch", "the challenge is for another token");
      if (request.methodDetails.chainId !== config.chainId) throw new UsdcRefusal("payment_network_mismatch", "the challenge is for another chain");
      if (!sameAddress(request.recipient, recipient)) throw new UsdcRefusal("payment_pay_to_mismatch", "the challenge pays another recipient");

      if (!sameAddress(payload.to, request.recipient)) throw new UsdcRefusal("payment_pay_to_mismatch", "the authorization pays another recipient");
      if (payload.value !== request.amount) throw new UsdcRefusal("payment_amount_mismatch", "the authorization is not for the challenge's amount");
      if (payload.nonce.toLowerCase() !== authorizationNonce(credential.challenge).toLowerCase())
        throw new UsdcRefusal("payment_invalid_header", "the authorization nonce is not bound to this challenge");

      const authorization = toEip3009(payload);
      const now = BigInt(Math.floor(Date.now() / 1000));
      if (authorization.validAfter >= now) throw new UsdcRefusal("payment_expired", "the authorization is not valid yet");
      if (authorization.validBefore <= now) throw new UsdcRefusal("payment_expired", "the authorization has expired");

      let signer: Address;
      try {
        const domain = authorizationDomain({ authorization: request.methodDetails.eip712, chainId: config.chainId, currency });
        signer = await recoverAddress({ hash: transferAuthorizationDigest(domain, authorization), signature: authorization.signature });
      } catch {
        throw new UsdcRefusal("payment_invalid_signature", "the signature cannot be read");
      }
      if (!sameAddress(signer, authorization.from)) throw new UsdcRefusal("payment_invalid_signature", "the authorization is not signed by its payer");

      const payer = getAddress(authorization.from);
      const source = toSource({ address: payer, chainId: config.chainId });
      if (credential.source !== undefined && credential.source !== source)
        throw new UsdcRefusal("payment_invalid_header", "the credential's source is not the authorization's payer");

      const onChain = await config.verifyAuthorization(authorization, target);
      if (!onChain.ok) throw new UsdcRefusal(onChain.reason, onChain.detail);

      return {
        challenge: credential.challenge,
        credential,
        details: { payer },
        intent: usdcMethod.intent,
        method: usdcMethod.name,
        request,
        source,
      };
    },

    async broadcast({ credential }) {
      const outcome = await config.settleAuthorization(toEip3009(credential.payload), target);
      if (!outcome.ok) throw new UsdcRefusal(outcome.reason, outcome.detail);
      return usdcReceipt({ transaction: outcome.transaction, network, externalId: credential.challenge.request.externalId });
    },
  });
}
