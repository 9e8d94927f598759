import type { Jwk } from "@board/proto";
import { sql } from "drizzle-orm";
import { index, integer, jsonb, numeric, pgSchema, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";

export const payments = pgSchema("payments");

export const claimState = payments.enum("claim_state", ["claimed", "settled", "released", "failed"]);

/**
 * Where a settled claim's money stands. final: on chain (or by the rail) for good; pending:
 * the read was answered once its transfer was simulated and broadcast, before its block;
 * lost: such a transfer failed after the read was served (recorded in `losses`).
 */
export const settlementState = payments.enum("settlement_state", ["final", "pending", "lost"]);

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
    /** For a settled claim: final, pending (answered before its block) or lost. */
    settlement: settlementState("settlement").notNull().default("final"),
    /** When a pending settlement became final or lost. */
    finalAt: timestamp("final_at", { withTimezone: true }),
    /** Times the read was delivered again to a retry of the same payment. */
    redeliveries: integer("redeliveries").notNull().default(0),
    claimedAt: timestamp("claimed_at", { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp("settled_at", { withTimezone: true }),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("claims_state_claimed_at").on(t.state, t.claimedAt),
    index("claims_payer_payment_id").on(t.payer, t.paymentId),
    index("claims_settlement_pending").on(t.settledAt).where(sql`settlement = 'pending'`),
  ],
);

/**
 * What each payer has been served and not yet paid on chain, per network, in the asset's base
 * units: `unsettled` (answered before its block, within the cap per payer) and `owed` (a
 * transfer that failed after its read was served; the payer's payments are refused while any
 * is owed).
 */
export const payerExposure = payments.table(
  "payer_exposure",
  {
    network: text("network").notNull(),
    payer: text("payer").notNull(),
    unsettled: numeric("unsettled", { precision: 38, scale: 0 }).notNull().default("0"),
    owed: numeric("owed", { precision: 38, scale: 0 }).notNull().default("0"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.network, t.payer] })],
);

/** Reads served whose payment then failed on chain: what was lost, from whom, and why. */
export const losses = payments.table("losses", {
  claimId: uuid("claim_id").primaryKey(),
  network: text("network").notNull(),
  payer: text("payer").notNull(),
  amount: numeric("amount", { precision: 38, scale: 0 }).notNull(),
  reason: text("reason").notNull(),
  detectedAt: timestamp("detected_at", { withTimezone: true }).notNull().defaultNow(),
  /** When an operator recorded it paid (or forgiven), with why; null while owed. */
  clearedAt: timestamp("cleared_at", { withTimezone: true }),
  clearedWhy: text("cleared_why"),
});

/**
 * The keys that sign offers and receipts, shared by every payments replica. A key is
 * published from its creation, signs from `signs_from` and is retired when its successor
 * starts signing; its private half is erased then, and its public half stays published for
 * good, so every receipt it signed can still be checked.
 */
export const receiptKeys = payments.table("receipt_keys", {
  /** The RFC 7638 thumbprint of the public key (the fragment of its DID URL). */
  kid: text("kid").primaryKey(),
  publicJwk: jsonb("public_jwk").$type<Jwk>().notNull(),
  /** The private JWK, AES-256-GCM under the key encryption key (base64 of iv | tag | ciphertext); null once retired. */
  privateKeyEnc: text("private_key_enc"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  signsFrom: timestamp("signs_from", { withTimezone: true }).notNull(),
  /** The successor's signs_from; null while this is the newest key. */
  retiredAt: timestamp("retired_at", { withTimezone: true }),
});

export type ReceiptKeyRow = typeof receiptKeys.$inferSelect;
