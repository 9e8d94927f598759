// A payer on an x402 rail: @x402/fetch's wrapFetchWithPayment with an x402Client holding the
// rail's own scheme client (EVM, SVM, AVM or Circle's batched scheme). This file adds only what
// the board's client needs around it: the rail's offers picked out of the 402, the price shown to
// the spending cap before anything is signed, and the settlement read back from PAYMENT-RESPONSE;
// or one offer signed and handed back, for a caller that carries it itself (x402 over MCP).

import { decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { networkError, type ClientError } from "../errors.js";
import { recordingFetch, type Approve, type Payer, type PayOutcome, type Quote, type Rail, type Settlement, type SignOutcome } from "./types.js";

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
  /** One x402Client per payment: its hook belongs to this payment's price. */
  const clientFor = (approve: Approve) => {
    const seen: { quote: Quote | null; refusal: ClientError | null } = { quote: null, refusal: null };
    const client = new x402Client();
    spec.setup(client);
    client.registerPolicy((_version, accepts) => accepts.filter(spec.offers));
    client.onBeforePaymentCreation(async ({ selectedRequirements: r }) => {
      seen.quote = { rail: spec.rail, amount: BigInt(r.amount), network: r.network, asset: r.asset, pay_to: r.payTo };
      seen.refusal = approve(seen.quote);
      return seen.refusal ? { abort: true, reason: seen.refusal.code } : undefined;
    });
    return { client, seen };
  };
  return {
    rail: spec.rail,
    address: spec.address,
    async get(url, headers, approve): Promise<PayOutcome> {
      const { client, seen } = clientFor(approve);
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
    async signX402(required: PaymentRequired, approve: Approve): Promise<SignOutcome> {
      const { client, seen } = clientFor(approve);
      try {
        const payload = await client.createPaymentPayload(required);
        if (seen.quote) return { ok: true, payload, quote: seen.quote };
        return { ok: false, error: { code: "payment_not_created", message: "the payment was signed without its price being seen" }, quote: null };
      } catch (err) {
        if (seen.refusal) return { ok: false, error: seen.refusal, quote: seen.quote };
        const message = err instanceof Error ? err.message : String(err);
        return { ok: false, error: noOffer(spec.rail, message) ?? { code: "payment_not_created", message: `the ${spec.rail} payment could not be signed: ${message}` }, quote: seen.quote };
      }
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
  const unpayable = noOffer(rail, message);
  if (unpayable) return unpayable;
  if (message.startsWith("Failed to parse payment requirements")) return { code: "invalid_response", message };
  if (sent) return networkError(url, err);
  return { code: "payment_not_created", message: `the ${rail} payment could not be signed: ${message}` };
}

/** The offers hold nothing this payer can pay, as @x402/core says it (an MCP call's PaymentRequired is a 402 too). */
function noOffer(rail: Rail, message: string): ClientError | null {
  if (!/No network\/scheme registered|filtered out by policies|rejected by spendControls|No client registered/.test(message)) return null;
  return { code: "no_matching_offer", message: `the 402 offers nothing this ${rail} payer can pay (${message.split(". ")[0]})` };
}
