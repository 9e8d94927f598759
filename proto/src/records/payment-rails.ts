import { z } from "zod";

/**
 * Whether payments settles real money: `development` when the launcher runs its development
 * chains (local chains and stand-ins, no real money), `production` otherwise.
 */
export const PaymentsMode = z.enum(["development", "production"]);
export type PaymentsMode = z.infer<typeof PaymentsMode>;

/**
 * A rail's availability: `live` (offered: its backend answered and has what the rail needs),
 * `down` (configured, its backend does not answer or lacks something: not offered, asked again
 * with backoff), `off` (not configured).
 */
export const RailState = z.enum(["live", "down", "off"]);
export type RailState = z.infer<typeof RailState>;

/** The rails as a buyer names them (`npm run buy -- --rail`): Circle's batched rail is `batched`. */
export const RailName = z.enum(["base", "solana", "algorand", "batched", "mpp"]);
export type RailName = z.infer<typeof RailName>;

/** Every rail's availability, each rail always present. */
export const RailStates = z.object({ base: RailState, solana: RailState, algorand: RailState, batched: RailState, mpp: RailState });
export type RailStates = z.infer<typeof RailStates>;

/**
 * Why a configured rail is down, as a stable code: its backend does not answer (`backend_*`),
 * or it answers and lacks what the rail needs, checked when the rail is brought up (README
 * "Payments"): `network_mismatch` (the RPC or algod serves another chain; Circle's Gateway does
 * not offer its batched kind on Base), `asset_missing` (no USDC there: no token contract, mint
 * or ASA, or another USDC than the configured one), `token_domain_mismatch` (the token's EIP-712
 * domain is not the one the offers tell buyers to sign, or cannot be read),
 * `facilitator_cannot_pay_fees` (the settling account cannot pay for one settlement: one batch
 * on Base), `pay_to_not_opted_in` (Algorand's payTo does not hold USDC's asset).
 */
export const RailDownReason = z.enum([
  "backend_unreachable",
  "backend_timeout",
  "backend_error",
  "network_mismatch",
  "asset_missing",
  "token_domain_mismatch",
  "facilitator_cannot_pay_fees",
  "pay_to_not_opted_in",
]);
export type RailDownReason = z.infer<typeof RailDownReason>;

/**
 * What limits a live rail: `multicall3_missing` (no Multicall3 on the chain: each payment is
 * settled by a transaction of its own), `facilitator_balance_low` (the settling account's
 * balance is below its floor, BASE_FACILITATOR_LOW_BALANCE_ETH).
 */
export const RailWarning = z.enum(["multicall3_missing", "facilitator_balance_low"]);
export type RailWarning = z.infer<typeof RailWarning>;

/** How a Base rail's payments go on chain: several per Multicall3 transaction, or one transaction each. */
export const RailSettlement = z.enum(["batched", "unbatched"]);
export type RailSettlement = z.infer<typeof RailSettlement>;

/**
 * Paid reads answered before their block and what that risks, in USDC base units: `unsettled`
 * served and not yet final, `owed` by payers whose transfer failed after their read was served
 * (`payers_owing` of them, refused until cleared), `losses` recorded in all.
 */
export const PaymentExposure = z.object({
  unsettled: z.string().regex(/^\d+$/),
  owed: z.string().regex(/^\d+$/),
  payers_owing: z.number().int().min(0),
  losses: z.number().int().min(0),
});
export type PaymentExposure = z.infer<typeof PaymentExposure>;

/**
 * What payments says of its rails: payments.v1.status, its /readyz, the board's status view.
 * `reasons`: why each rail that is down is down; `warnings`: what limits a live rail;
 * `settlement`: how the live Base rails (base, mpp) settle. Optional: replicas before them
 * did not say them.
 */
export const PaymentRails = z.object({
  mode: PaymentsMode,
  rails: RailStates,
  reasons: z.partialRecord(RailName, RailDownReason).optional(),
  warnings: z.partialRecord(RailName, z.array(RailWarning)).optional(),
  settlement: z.partialRecord(RailName, RailSettlement).optional(),
  exposure: PaymentExposure.optional(),
});
export type PaymentRails = z.infer<typeof PaymentRails>;
