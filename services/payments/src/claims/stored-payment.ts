/** What a claim keeps so that settlement (now, or reconciliation after a restart) and redelivery can run. */
export type StoredPayment =
  /** `batched`: verified without the chain, settled in a batch (the rail's `batched`). */
  | { version: 1 | 2; payload: unknown; requirement: unknown; batched?: true }
  /** MPP: the credential and what it was checked against; `payload` holds the EIP-3009 authorization for reconciliation on Base. */
  | { version: "mpp"; credential: string; expected: { amount: string; resource: string }; payload: { payload: { authorization: unknown } } };

/** The signed part of an x402 payload (authorization and signature, or a transaction), whatever its version's envelope. */
export const innerPayload = (payload: unknown) => (payload as { payload?: unknown } | null)?.payload;
