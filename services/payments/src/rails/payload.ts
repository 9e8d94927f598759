import type { PaymentPayload } from "@x402/core/types";

/** A v1 payload (x402-fetch 1.x): scheme and network on the payload itself, no `accepted`. */
export interface PaymentPayloadV1 {
  x402Version: 1;
  scheme: string;
  network: string;
  payload: Record<string, unknown>;
}

/** An x402 payment payload of either version, as it arrives. */
export type AnyPaymentPayload = PaymentPayload | PaymentPayloadV1;
