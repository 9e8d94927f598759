import { Credential, Method, type Challenge } from "mppx";
import { authorizationDomain, authorizationTypes, toSource } from "mppx/evm";
import { getAddress, type Address, type Hex, type LocalAccount } from "viem";
import type { UsdcChargeRequest } from "@board/proto";
import { authorizationNonce, usdcMethod, type UsdcAuthorization } from "../../src/rails/mpp/method.js";

/** A usdc/charge challenge as mppx's client hands it to a method. */
export type UsdcChallenge = Challenge.Challenge<UsdcChargeRequest, "charge", "usdc">;

/** Deviations from what the challenge asks, to build credentials a server must refuse. */
export interface CredentialOverrides {
  to?: Address;
  value?: bigint;
  nonce?: Hex;
  validAfter?: bigint;
  validBefore?: bigint;
  /** Signs with this account while claiming to be `account`. */
  signer?: LocalAccount;
}

/**
 * The `Authorization: Payment ...` value paying a usdc/charge challenge: an EIP-3009
 * transferWithAuthorization of exactly the amount to the recipient, its nonce bound to the
 * challenge, valid until the challenge expires.
 */
export async function createUsdcCredential(account: LocalAccount, challenge: UsdcChallenge, overrides: CredentialOverrides = {}): Promise<string> {
  const request = challenge.request;
  const from = getAddress(account.address);
  const chainId = request.methodDetails.chainId;
  const validBefore =
    overrides.validBefore ?? BigInt(challenge.expires ? Math.floor(Date.parse(challenge.expires) / 1000) : Math.floor(Date.now() / 1000) + 300);
  const message = {
    from,
    to: overrides.to ?? getAddress(request.recipient),
    value: overrides.value ?? BigInt(request.amount),
    validAfter: overrides.validAfter ?? 0n,
    validBefore,
    nonce: overrides.nonce ?? authorizationNonce(challenge),
  };
  const signature = await (overrides.signer ?? account).signTypedData({
    domain: authorizationDomain({ authorization: request.methodDetails.eip712, chainId, currency: getAddress(request.currency) }),
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  const payload: UsdcAuthorization = {
    type: "authorization",
    from: message.from,
    to: message.to,
    value: message.value.toString(),
    validAfter: message.validAfter.toString(),
    validBefore: message.validBefore.toString(),
    nonce: message.nonce,
    signature,
  };
  return Credential.serialize(Credential.from({ challenge, payload, source: toSource({ address: from, chainId }) }));
}

/**
 * The usdc method for mppx's own client (`Mppx.create({ methods: [usdcClientMethod(account)] })`),
 * so that its fetch pays our 402s. `maxAmount` (base units) refuses dearer challenges.
 */
export function usdcClientMethod(account: LocalAccount, options: { maxAmount?: bigint } = {}) {
  return Method.toClient(usdcMethod, {
    async createCredential({ challenge }) {
      if (options.maxAmount !== undefined && BigInt(challenge.request.amount) > options.maxAmount) {
        throw new Error(`the challenge asks ${challenge.request.amount} base units, above the limit of ${options.maxAmount}`);
      }
      return createUsdcCredential(account, challenge);
    },
  });
}
