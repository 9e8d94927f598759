import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgSchema, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const payments = pgSchema("payments");

export const claimState = payments.enum("claim_state", ["claimed", "settled", "released", "failed"]);

/**
 * One row per payment ever presented. `payment_key` is what makes a payment single use:
 * EVM payer+nonce, Solana transaction, Algorand group, MPP challenge. A claimed or settled
 * key can never be claimed again; a released one (its read failed) can.
 */
export const claims = payments.table(
  "claims",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    paymentKey: text("payment_key").notNull().unique(),
    rail: text("rail").notNull(),
    network: text("network").notNull(),
    route: text("route").notNull(),
    amount: text("amount").notNull(),
    payer: text("payer").notNull(),
    state: claimState("state").notNull().default("claimed"),
    /** What settlement needs (the verified payload and requirement), kept so a restart can reconcile. */
    payment: jsonb("payment").notNull(),
    transaction: text("transaction"),
    receipt: jsonb("receipt"),
    failure: text("failure"),
    /** The board version the read was cut from (snapshot, freshness, encoding): recorded before settlement, so a redelivery serves the same bytes. */
    delivery: jsonb("delivery"),
    /** The buyer's payment-identifier id (x402 extension), when the payment carried one. */
    paymentId: text("payment_id"),
    /** Times the read was delivered again to a retry of the same payment. */
    redeliveries: integer("redeliveries").notNull().default(0),
    claimedAt: timestamp("claimed_at", { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp("settled_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("claims_state_claimed_at").on(t.state, t.claimedAt), index("claims_payer_payment_id").on(t.payer, t.paymentId)],
);
