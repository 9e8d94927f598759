// MPP: the board's `usdc` method, intent `charge` (SPEC.md 4.1 rule 5), paid through mppx's own
// client (Mppx.create(...).fetch). The challenge in WWW-Authenticate asks for an exact amount of
// USDC to a recipient on Base; the credential in `Authorization: Payment` is the buyer's EIP-3009
// authorization of exactly that, with mppx's `evm` payload and EIP-712 pieces, its nonce bound to
// the challenge. The settlement comes back in Payment-Receipt.
//
// The challenge's request schema is the wire contract the payments service issues it by
// (@board/proto's UsdcChargeRequest); the credential's payload is mppx's `evm` one.

import { CHARGE_INTENT, USDC_METHOD, UsdcChargeRequest } from "@board/proto";
import { Credential, Method, Receipt } from "mppx";
import { Mppx } from "mppx/client";
import { AuthorizationPayloadSchema, authorizationDomain, authorizationTypes, challengeHash, toSource } from "mppx/evm";
import { getAddress, type Hex, type LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { networkError, type ClientError } from "../errors.js";
import { recordingFetch, type Payer, type PayOutcome, type Quote, type Settlement } from "./types.js";

export const usdcMethod = Method.from({
  name: USDC_METHOD,
  intent: CHARGE_INTENT,
  schema: { credential: { payload: AuthorizationPayloadSchema }, request: UsdcChargeRequest },
});

/** Thrown from inside mppx when the cap says no: nothing has been signed. */
class NotApproved extends Error {}

/** mppx's client method for `usdc`: signs exactly what the challenge asks, after `approve` agreed. */
function usdcClientMethod(account: LocalAccount, approve: (quote: Quote) => ClientError | null, seen: { quote: Quote | null; refusal: ClientError | null }) {
  return Method.toClient(usdcMethod, {
    async createCredential({ challenge }) {
      const request = challenge.request;
      seen.quote = {
        rail: "mpp",
        amount: BigInt(request.amount),
        network: request.methodDetails.network,
        asset: request.currency,
        pay_to: request.recipient,
      };
      seen.refusal = approve(seen.quote);
      if (seen.refusal) throw new NotApproved(seen.refusal.message);
      const from = getAddress(account.address);
      const chainId = request.methodDetails.chainId;
      const message = {
        from,
        to: getAddress(request.recipient),
        value: BigInt(request.amount),
        validAfter: 0n,
        validBefore: BigInt(challenge.expires ? Math.floor(Date.parse(challenge.expires) / 1000) : Math.floor(Date.now() / 1000) + 300),
        nonce: challengeHash(challenge) as Hex,
      };
      const signature = await account.signTypedData({
        domain: authorizationDomain({ authorization: request.methodDetails.eip712, chainId, currency: getAddress(request.currency) }),
        types: authorizationTypes,
        primaryType: "TransferWithAuthorization",
        message,
      });
      const payload = {
        type: "authorization" as const,
        from,
        to: message.to,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
        nonce: message.nonce,
        signature,
      };
      return Credential.serialize(Credential.from({ challenge, payload, source: toSource({ address: from, chainId }) }));
    },
  });
}

export function mppPayer(opts: { privateKey: Hex; fetch?: typeof globalThis.fetch }): Payer {
  const account = privateKeyToAccount(opts.privateKey);
  const baseFetch = opts.fetch ?? globalThis.fetch;
  return {
    rail: "mpp",
    address: account.address,
    async get(url, headers, approve): Promise<PayOutcome> {
      const seen: { quote: Quote | null; refusal: ClientError | null } = { quote: null, refusal: null };
      const recorder = recordingFetch(baseFetch);
      // One paid attempt: a refused credential comes back as the board's answer, not paid again.
      const mppx = Mppx.create({ methods: [usdcClientMethod(account, approve, seen)], polyfill: false, fetch: recorder.fetch, maxPaymentRetries: 1 });
      let response: Response;
      try {
        response = await mppx.fetch(url, { headers });
      } catch (err) {
        if (seen.refusal) return { kind: "not_paid", error: seen.refusal, quote: seen.quote };
        if (recorder.sent() === null && seen.quote === null) {
          const message = err instanceof Error ? err.message : String(err);
          // No usdc challenge in the 402 at all, or nothing answered.
          if (/challenge|method/i.test(message)) return { kind: "not_paid", error: { code: "no_matching_offer", message: `the 402 offers no MPP usdc charge: ${message}` }, quote: null };
        }
        return { kind: "not_paid", error: networkError(url, err), quote: seen.quote };
      }
      const payment = recorder.sent();
      return { kind: "answered", response, quote: payment ? seen.quote : null, payment, settlement: mppSettlement(response, account.address) };
    },
  };
}

/** Payment-Receipt of a settled charge, decoded with mppx (it names no payer: the credential's signer paid). */
function mppSettlement(response: Response, payer: string): Settlement | null {
  if (!response.headers.get("payment-receipt")) return null;
  try {
    const receipt = Receipt.fromResponse(response);
    if (receipt.status !== "success") return null;
    const network = (receipt as { network?: unknown }).network;
    return {
      transaction: receipt.reference,
      network: typeof network === "string" ? network : "eip155:8453",
      payer,
      header: "Payment-Receipt",
      decoded: receipt as unknown as Record<string, unknown>,
    };
  } catch {
    return null;
  }
}
