import { z } from "zod";

/**
 * Whether payments settles real money: `development` when the launcher runs its development
 * chains (local chains and stand-ins, no real money), `production` otherwise.
 */
export const PaymentsMode = z.enum(["development", "production"]);
export type PaymentsMode = z.infer<typeof PaymentsMode>;

/**
 * A rail's availability: `live` (offered: its backend answered), `down` (configured, its
 * backend does not answer yet: not offered, retried with backoff), `off` (not configured).
 */
export const RailState = z.enum(["live", "down", "off"]);
export type RailState = z.infer<typeof RailState>;

/** The rails as a buyer names them (`npm run buy -- --rail`): Circle's batched rail is `batched`. */
export const RailName = z.enum(["base", "solana", "algorand", "batched", "mpp"]);
export type RailName = z.infer<typeof RailName>;

/** Every rail's availability, each rail always present. */
export const RailStates = z.object({ base: RailState, solana: RailState, algorand: RailState, batched: RailState, mpp: RailState });
export type RailStates = z.infer<typeof RailStates>;

/** What payments says of its rails: payments.v1.status, its /readyz, the board's status view. */
export const PaymentRails = z.object({ mode: PaymentsMode, rails: RailStates });
export type PaymentRails = z.infer<typeof PaymentRails>;
