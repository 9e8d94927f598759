import { randomBytes } from "node:crypto";
import type { Eip712Token } from "@board/proto";
import { Challenge, Credential, Errors, Receipt, Store } from "mppx";
import { Mppx } from "mppx/server/core";
import type { Address, Hex } from "viem";
import { networkOfChain, usdcReceipt, type UsdcAuthorization } from "./method.js";
import { isMalformedInput } from "../malformed-input.js";
import { malformed, refusal, UsdcRefusal, type MppRefusal } from "./reasons.js";
import { usdcCharge, type SettleAuthorization, type VerifyAuthorization } from "./server-method.js";

/** Base USDC's EIP-712 domain. */
export const USD_COIN_EIP712: Eip712Token = { name: "USD Coin", version: "2" };
const DEFAULT_CHALLENGE_TTL_SECONDS = 300;
/** A credential must leave this long before it lapses, so settlement after the read can still land. */
const DEFAULT_SETTLE_MARGIN_SECONDS = 6;

export interface MppRailConfig {
  /** HMAC key binding challenge ids to their content (at least 32 bytes; configuration, never logged). */
  secretKey: string;
  /** The challenge realm: our public host. */
  realm: string;
  payTo: Address;
  usdc: Address;
  chainId: number;
  eip712?: Eip712Token;
  challengeTtlSeconds?: number;
  settleMarginSeconds?: number;
  /**
   * Where claimed challenge ids are kept until their expiry: mppx's custom settlement does not
   * stop replays by itself. mppx's Store (memory, Redis, KV) or any AtomicStore (e.g. over Postgres).
   */
  replayStore: Store.AtomicStore;
  verifyAuthorization: VerifyAuthorization;
  settleAuthorization: SettleAuthorization;
}

/** What the credential is expected to pay for: the route's price and the resource its challenge was scoped to. */
export interface MppExpected {
  amount: bigint | string;
  resource: string;
}

export interface MppVerified {
  ok: true;
  /** The challenge id: one claim per challenge. */
  key: string;
  payer: Address;
  authorization: UsdcAuthorization;
  /** The challenge's expiry (ISO 8601): the claim is void after it. */
  expires: string;
  /** Our quote id, echoed in the receipt. */
  externalId: string | undefined;
}

export interface MppSettled {
  ok: true;
  transaction: Hex;
  network: string;
  /** The Payment-Receipt header value. */
  receipt: string;
}

export interface MppRail {
  readonly method: "usdc";
  readonly intent: "charge";
  readonly network: string;
  /** A fresh challenge: the WWW-Authenticate header value of the 402. */
  challenge(offer: MppExpected & { description?: string }): Promise<string>;
  /**
   * Checks an `Authorization: Payment ...` value against the route and claims its challenge id
   * in the replay store. Refusals are data; throws only when the chain cannot be asked.
   */
  verify(authorization: string, expected: MppExpected): Promise<MppVerified | MppRefusal>;
  /**
   * Re-validates and settles a verified credential on chain; returns the Payment-Receipt.
   * A refusal is definite (nothing moved); throws when the outcome is unknown.
   */
  settle(authorization: string, expected: MppExpected): Promise<MppSettled | MppRefusal>;
  /** The Payment-Receipt for a verified credential settled by `transaction` (e.g. found by reconciliation). */
  receipt(verified: Pick<MppVerified, "externalId">, transaction: Hex): string;
  /** Frees a claimed challenge id (the read failed): the same credential may be presented again. */
  release(key: string): Promise<void>;
}

const replayKey = (challengeId: string) => `mpp:usdc:${challengeId}`;

/**
 * The MPP rail: mppx issues and checks the challenges (HMAC-bound ids, expiry, resource scope,
 * route binding, header formats, receipts, problem details); the usdc method checks and
 * settles the EIP-3009 authorization; the replay store makes each challenge single use.
 */
export function createMppRail(config: MppRailConfig): MppRail {
  const eip712 = config.eip712 ?? USD_COIN_EIP712;
  const network = networkOfChain(config.chainId);
  const ttlMs = (config.challengeTtlSeconds ?? DEFAULT_CHALLENGE_TTL_SECONDS) * 1000;
  const marginMs = (config.settleMarginSeconds ?? DEFAULT_SETTLE_MARGIN_SECONDS) * 1000;
  const method = usdcCharge({
    chainId: config.chainId,
    currency: config.usdc,
    recipient: config.payTo,
    eip712,
    verifyAuthorization: config.verifyAuthorization,
    settleAuthorization: config.settleAuthorization,
  });
  const mppx = Mppx.create({ methods: [method], secretKey: config.secretKey, realm: config.realm });
  const store = config.replayStore;

  const routeOptions = (expected: MppExpected) => ({ scope: expected.resource, request: { amount: expected.amount.toString() } });

  function parse(header: string): Credential.Credential | MppRefusal {
    const payment = Credential.extractPaymentScheme(header);
    if (!payment) return malformed("no Payment credential in the header");
    try {
      return Credential.deserialize(payment);
    } catch (err) {
      return malformed(err instanceof Error ? err.message : "unreadable credential");
    }
  }

  return {
    method: "usdc",
    intent: "charge",
    network,

    async challenge({ amount, resource, description }) {
      const challenge = await mppx.challenge.usdc.charge({
        amount: amount.toString(),
        externalId: randomBytes(12).toString("base64url"),
        scope: resource,
        expires: new Date(Date.now() + ttlMs),
        ...(description !== undefined && { description }),
      });
      return Challenge.serialize(challenge);
    },

    async verify(header, expected) {
      const credential = parse(header);
      if ("ok" in credential) return credential;
      const challengeId = credential.challenge.id;
      let payer: Address;
      let authorization: UsdcAuthorization;
      try {
        const validation = await mppx.validateCredential(credential, routeOptions(expected));
        payer = (validation.details as { payer: Address }).payer;
        authorization = validation.credential.payload as UsdcAuthorization;
      } catch (err) {
        if (err instanceof Errors.PaymentError) return refusal(err, challengeId);
        // mppx checks the payload against the method's schema by throwing its schema error: the
        // client's malformed credential (a 402), not verification being unavailable (a 503).
        if (isMalformedInput(err)) return malformed("the credential's payload does not fit the usdc method's schema");
        throw err;
      }
      // validateCredential asserted `expires` is present and in the future.
      const expires = credential.challenge.expires as string;
      const lapses = Math.min(Date.parse(expires), Number(authorization.validBefore) * 1000);
      if (lapses - Date.now() < marginMs) {
        return refusal(new UsdcRefusal("payment_expired", "the challenge lapses too soon for the payment to settle"), challengeId);
      }
      if (!(await Store.tryClaim(store, replayKey(challengeId), Date.parse(expires)))) {
        const used = new Errors.InvalidChallengeError({ id: challengeId, reason: "challenge was already used" });
        return refusal(used, challengeId, "payment_already_used");
      }
      const externalId = (credential.challenge.request as { externalId?: string }).externalId;
      return { ok: true, key: challengeId, payer, authorization, expires, externalId };
    },

    async settle(header, expected) {
      const credential = parse(header);
      if ("ok" in credential) return credential;
      try {
        const receipt = await mppx.broadcastCredential(credential, routeOptions(expected));
        return { ok: true, transaction: receipt.reference as Hex, network, receipt: Receipt.serialize(receipt) };
      } catch (err) {
        if (err instanceof Errors.PaymentError) return refusal(err, credential.challenge.id);
        throw err;
      }
    },

    receipt(verified, transaction) {
      return Receipt.serialize(usdcReceipt({ transaction, network, externalId: verified.externalId }));
    },

    async release(key) {
      await store.delete(replayKey(key));
    },
  };
}
