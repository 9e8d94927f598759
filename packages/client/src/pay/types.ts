// What a payer is: one wallet on one rail, able to answer the board's 402 for a read. The
// paying itself is done by the rail's own client library (@x402/fetch with the rail's scheme,
// Circle's batching client, mppx); a payer only wires it up and reports what it paid.

import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import type { ClientError } from "../errors.js";

export const RAILS = ["base", "solana", "algorand", "batched", "mpp"] as const;
export type Rail = (typeof RAILS)[number];

/** What a 402 asks this payer to pay, known before anything is signed. */
export interface Quote {
  rail: Rail;
  /** USDC base units (6 decimals). */
  amount: bigint;
  network: string;
  asset: string | null;
  pay_to: string | null;
}

/** Called with the price before anything is signed; a refusal stops the payment. */
export type Approve = (quote: Quote) => ClientError | null;

/** The settlement the board reported on the paid read (PAYMENT-RESPONSE or Payment-Receipt). */
export interface Settlement {
  transaction: string;
  network: string;
  payer: string | null;
  /** The header it came in. */
  header: "PAYMENT-RESPONSE" | "Payment-Receipt";
  /** The header's content, decoded. */
  decoded: Record<string, unknown>;
}

/** The payment that was sent: a header and its value (single use: sending it again is refused). */
export interface SentPayment {
  header: string;
  value: string;
}

export type PayOutcome =
  /** The board's answer to the paid request (200 with a settlement, or a refusal such as 402). */
  | { kind: "answered"; response: Response; quote: Quote | null; payment: SentPayment | null; settlement: Settlement | null }
  /** Nothing was paid: refused here (cap, no offer, signing failed) or the board could not be reached. */
  | { kind: "not_paid"; error: ClientError; quote: Quote | null };

/** One offer of a PaymentRequired signed, not sent: the caller carries it (x402's MCP transport: _meta["x402/payment"]). */
export type SignOutcome = { ok: true; payload: PaymentPayload; quote: Quote } | { ok: false; error: ClientError; quote: Quote | null };

export interface Payer {
  readonly rail: Rail;
  /** The paying wallet's address on its rail. */
  readonly address: string;
  /** GETs `url` (with `headers`), paying the 402 if one comes; `approve` sees the price first. */
  get(url: string, headers: Record<string, string>, approve: Approve): Promise<PayOutcome>;
  /** x402 rails only (not MPP): signs the offer of `required` this payer takes; `approve` sees the price first. */
  signX402?(required: PaymentRequired, approve: Approve): Promise<SignOutcome>;
}

/** A fetch that remembers the payment headers it sent, so a receipt can say what was paid with. */
export function recordingFetch(inner: typeof globalThis.fetch): { fetch: typeof globalThis.fetch; sent(): SentPayment | null } {
  let last: SentPayment | null = null;
  const wrapped: typeof globalThis.fetch = (input, init) => {
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    new Headers(init?.headers).forEach((value, name) => headers.set(name, value));
    for (const name of ["payment-signature", "x-payment"]) {
      const value = headers.get(name);
      if (value) last = { header: name.toUpperCase(), value };
    }
    const auth = headers.get("authorization");
    if (auth?.startsWith("Payment ")) last = { header: "Authorization", value: auth };
    return inner(input, init);
  };
  return { fetch: wrapped, sent: () => last };
}
