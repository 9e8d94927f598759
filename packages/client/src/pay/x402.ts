// A payer on an x402 rail: @x402/fetch's wrapFetchWithPayment with an x402Client holding the
// rail's own scheme client (EVM, SVM, AVM or Circle's batched scheme). This file adds only what
// the board's client needs around it: the rail's offers picked out of the 402, the price shown to
// the spending cap before anything is signed, and the settlement read back from PAYMENT-RESPONSE.

import { decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequirements } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { networkError, type ClientError } from "../errors.js";
import { recordingFetch, type Payer, type PayOutcome, type Quote, type Rail, type Settlement } from "./types.js";

/** Circle's batched rail is an exact offer on Base told apart by extra.name (SPEC.md 4.1 rule 5). */
export const BATCHED_OFFER_NAME = "GatewayWalletBatched";
export const isBatchedOffer = (r: PaymentRequirements): boolean => r.extra?.["name"] === BATCHED_OFFER_NAME;

export interface X402PayerSpec {
  rail: Rail;
  address: string;
  /** Registers the rail's scheme client (and any spend controls) on a fresh x402Client. */
  setup(client: x402Client): void;
  /** Which accepts entries of a 402 are this rail's. */
  offers(requirements: PaymentRequirements): boolean;
  fetch?: typeof globalThis.fetch;
}

export function x402Payer(spec: X402PayerSpec): Payer {
  const baseFetch = spec.fetch ?? globalThis.fetch;
  return {
    rail: spec.rail,
    address: spec.address,
    async get(url, headers, approve): Promise<PayOutcome> {
      const seen: { quote: Quote | null; refusal: ClientError | null } = { quote: null, refusal: null };
      // One x402Client per read: the hook below belongs to this read's price.
      const client = new x402Client();
      spec.setup(client);
      client.registerPolicy((_version, accepts) => accepts.filter(spec.offers));
      client.onBeforePaymentCreation(async ({ selectedRequirements: r }) => {
        seen.quote = { rail: spec.rail, amount: BigInt(r.amount), network: r.network, asset: r.asset, pay_to: r.payTo };
        seen.refusal = approve(seen.quote);
        return seen.refusal ? { abort: true, reason: seen.refusal.code } : undefined;
      });
      const recorder = recordingFetch(baseFetch);
      let response: Response;
      try {
        response = await wrapFetchWithPayment(recorder.fetch, client)(url, { headers });
      } catch (err) {
        if (seen.refusal) return { kind: "not_paid", error: seen.refusal, quote: seen.quote };
        return { kind: "not_paid", error: x402Failure(spec.rail, url, err, recorder.sent() !== null), quote: seen.quote };
      }
      const payment = recorder.sent();
      return { kind: "answered", response, quote: payment ? seen.quote : null, payment, settlement: settlementOf(response) };
    },
  };
}

/** PAYMENT-RESPONSE of a settled read, decoded (x402 v2; X-PAYMENT-RESPONSE for v1 clients). */
export function settlementOf(response: Response): Settlement | null {
  const header = response.headers.get("payment-response") ?? response.headers.get("x-payment-response");
  if (!header) return null;
  try {
    const decoded = decodePaymentResponseHeader(header);
    if (!decoded.success) return null;
    return {
      transaction: decoded.transaction,
      network: decoded.network,
      payer: decoded.payer ?? null,
      header: "PAYMENT-RESPONSE",
      decoded: decoded as unknown as Record<string, unknown>,
    };
  } catch {
    return null;
  }
}

/** What a throw out of wrapFetchWithPayment means for the caller. */
function x402Failure(rail: Rail, url: string, err: unknown, sent: boolean): ClientError {
  const message = err instanceof Error ? err.message : String(err);
  if (!message.startsWith("Failed to") && !sent) return networkError(url, err);
  if (/No network\/scheme registered|filtered out by policies|rejected by spendControls|No client registered/.test(message)) {
    return { code: "no_matching_offer", message: `the 402 offers nothing this ${rail} payer can pay (${message.split(". ")[0]})` };
  }
  if (message.startsWith("Failed to parse payment requirements")) return { code: "invalid_response", message };
  if (sent) return networkError(url, err);
  return { code: "payment_not_created", message: `the ${rail} payment could not be signed: ${message}` };
}
