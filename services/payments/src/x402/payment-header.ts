import { Base64EncodedRegex, safeBase64Decode } from "@x402/core/utils";
import { parsePaymentPayload, PaymentPayloadV1Schema } from "@x402/core/schemas";
import type { PaymentPayload } from "@x402/core/types";
import type { PaymentPayloadV1 } from "../rails/payload.js";

export type DecodedPayment = { version: 2; payload: PaymentPayload } | { version: 1; payload: PaymentPayloadV1 };

/**
 * Reads an x402 payment header: base64 JSON, a v2 payload (PAYMENT-SIGNATURE, or X-PAYMENT
 * from a client that follows SPEC.md's header name) or a v1 payload (X-PAYMENT, x402-fetch
 * 1.x). Returns null for anything else; the caller answers payment_invalid_header.
 */
export function decodePaymentHeader(value: string): DecodedPayment | null {
  const trimmed = value.trim();
  if (!Base64EncodedRegex.test(trimmed)) return null;
  let json: unknown;
  try {
    json = JSON.parse(safeBase64Decode(trimmed));
  } catch {
    return null;
  }
  if (typeof json !== "object" || json === null) return null;
  const version = (json as { x402Version?: unknown }).x402Version;
  if (version === 1) {
    const v1 = PaymentPayloadV1Schema.safeParse(json);
    return v1.success ? { version: 1, payload: v1.data as PaymentPayloadV1 } : null;
  }
  if (version === 2) {
    const v2 = parsePaymentPayload(json);
    return v2.success && "accepted" in v2.data ? { version: 2, payload: v2.data as PaymentPayload } : null;
  }
  return null;
}
