import { z } from "zod";
import { BaseUnits, IsoDateTime } from "../records/common.js";
import { FreshnessBlock } from "../records/freshness.js";
import { CommitmentRef } from "../records/proof-views.js";
import { PaymentRails, type RailName } from "../records/payment-rails.js";
import { ContentEncoding } from "./board.js";
import { busEndpoint } from "./endpoint.js";
import { Jwk } from "./identity.js";

/** The rails a paid read can be bought on (SPEC.md 4.1 rule 5, DECISIONS.md "Payments"). */
export const Rail = z.enum(["base", "solana", "algorand", "circle_batched", "mpp"]);
export type Rail = z.infer<typeof Rail>;

/** Each rail's name in PaymentRails (as buyers name it). */
export const RAIL_NAME: Readonly<Record<Rail, RailName>> = { base: "base", solana: "solana", algorand: "algorand", circle_batched: "batched", mpp: "mpp" };

/** Where the client put its payment: PAYMENT-SIGNATURE (v2), X-PAYMENT (v1, or v2 by SPEC.md's name), Authorization: Payment (MPP). */
export const PaymentCarrier = z.enum(["payment-signature", "x-payment", "authorization"]);
export type PaymentCarrier = z.infer<typeof PaymentCarrier>;

/** The longest query string a resource URL carries; the gateway leaves a longer one out of the resource URL. */
export const MAX_RESOURCE_QUERY_CHARS = 2048;

/** The paid route and the request's query string (without "?"); payments builds the resource URL from its public base URL. */
const Resource = { path: z.string().startsWith("/"), query: z.string().max(MAX_RESOURCE_QUERY_CHARS).default("") };

/** The 402 of a paid route, ready to send: the body text and its headers (PAYMENT-REQUIRED, WWW-Authenticate). */
export const RequirementsRequest = z.object({
  ...Resource,
  /** Why a payment was refused (a payment_* reason code), when this 402 answers one. */
  error: z.string().max(64).optional(),
  message: z.string().max(500).optional(),
  /** The refused payment was an MPP credential: answer with problem+json (RFC 9457) as MPP specifies. */
  problem: z.boolean().optional(),
  /** The 402 answers this paid MCP tool's call: its bazaar discovery declaration names the tool, not the HTTP route. */
  tool: z.string().max(64).optional(),
});
export type RequirementsRequest = z.input<typeof RequirementsRequest>;
export const RequirementsReply = z.object({ body: z.string(), headers: z.record(z.string(), z.string()) });
export type RequirementsReply = z.infer<typeof RequirementsReply>;

/**
 * A read's parameters as the board is asked them (parsed and normalized from the query: one
 * spelling per read, whatever the client's, e.g. sym=AAPL,MSFT for sym=aapl&sym=msft).
 */
export const ReadParams = z.record(z.string().max(64), z.string().max(MAX_RESOURCE_QUERY_CHARS));
export type ReadParams = z.infer<typeof ReadParams>;

/**
 * What a paid read served: the board version (its snapshot's hash), the freshness block it
 * carried, the encoding and the read's parameters. The board renders the same bytes from it
 * again (board.v1.read with `snapshot` and `freshness`), so a retry of the same payment is
 * served what it bought, and only that: a retry asking other parameters is refused.
 * `commitment` (the board version's place in the proof chain) is what the signed receipt names.
 */
export const Delivery = z.object({
  snapshot: z.string().max(128),
  freshness: FreshnessBlock,
  encoding: ContentEncoding,
  commitment: CommitmentRef.optional(),
  /** Absent in deliveries recorded before parameters were: read as none. */
  params: ReadParams.optional(),
});
export type Delivery = z.infer<typeof Delivery>;

/** Settles a claim after the read succeeded; only a settled claim is served. `delivery` is recorded first. */
export const SettleRequest = z.object({ claim_id: z.uuid(), delivery: Delivery.optional() });
export type SettleRequest = z.infer<typeof SettleRequest>;
export const SettleReply = z.object({
  /** PAYMENT-RESPONSE (x402) or Payment-Receipt (MPP), to send with the 200. */
  headers: z.record(z.string(), z.string()),
  transaction: z.string(),
  network: z.string(),
  settled_at: IsoDateTime,
});
export type SettleReply = z.infer<typeof SettleReply>;

/**
 * A retry of a payment already settled (the same signed payment, or the same payment-identifier
 * id from the same payer): serve `delivery` again with `receipt`'s headers; nothing is claimed
 * or charged. `count` is this redelivery's number (1 for the first).
 */
export const Redelivery = z.object({ delivery: Delivery, receipt: SettleReply, count: z.number().int().min(1) });
export type Redelivery = z.infer<typeof Redelivery>;

/**
 * Verifies a payment for this route and claims it in Postgres (unique per payment) before
 * anything is served. Refusals are 402s with a payment_* reason code.
 */
export const ClaimRequest = z.object({
  ...Resource,
  carrier: PaymentCarrier,
  value: z.string().min(1).max(16_384),
  /** The read's parameters: a payment that bought a read is delivered it again only for the same parameters. */
  params: ReadParams.optional(),
});
export type ClaimRequest = z.input<typeof ClaimRequest>;
export const ClaimReply = z.object({
  claim_id: z.uuid(),
  rail: Rail,
  network: z.string(),
  payer: z.string(),
  amount: BaseUnits,
  /** Present when this payment was settled before: the read is delivered again, not bought again. */
  redelivery: Redelivery.optional(),
});
export type ClaimReply = z.infer<typeof ClaimReply>;

/** Releases a claim whose read failed: nothing is charged and the payment may be used again. */
export const ReleaseRequest = z.object({ claim_id: z.uuid(), reason: z.string().max(200) });
export type ReleaseRequest = z.infer<typeof ReleaseRequest>;
export const ReleaseReply = z.object({ released: z.boolean() });
export type ReleaseReply = z.infer<typeof ReleaseReply>;

/** Settlements so far, and the mode and rails of the replica that answered. */
export const PaymentsStatusReply = z.object({ last_settlement_at: IsoDateTime.nullable(), settlements: z.number().int().min(0), ...PaymentRails.shape });
export type PaymentsStatusReply = z.infer<typeof PaymentsStatusReply>;

export const paymentsRequirements = busEndpoint("payments", "requirements", RequirementsRequest, RequirementsReply);
export const paymentsClaim = busEndpoint("payments", "claim", ClaimRequest, ClaimReply);
export const paymentsSettle = busEndpoint("payments", "settle", SettleRequest, SettleReply);
export const paymentsRelease = busEndpoint("payments", "release", ReleaseRequest, ReleaseReply);
/** GET /api: every paid route, its price and every offer, as one 402 body. */
export const CatalogueReply = z.object({ body: z.string() });
export type CatalogueReply = z.infer<typeof CatalogueReply>;

/**
 * GET /.well-known/did.json: the did:web document of the keys that sign offers and receipts
 * (x402's offer-receipt extension resolves a receipt's kid here). Every key ever used stays
 * listed, so a receipt can be checked long after its key stopped signing.
 */
export const DidVerificationMethod = z.object({
  id: z.string(),
  type: z.literal("JsonWebKey2020"),
  controller: z.string(),
  publicKeyJwk: Jwk,
});
export type DidVerificationMethod = z.infer<typeof DidVerificationMethod>;
export const DidDocument = z.object({
  "@context": z.array(z.string()),
  id: z.string().startsWith("did:web:"),
  verificationMethod: z.array(DidVerificationMethod),
  assertionMethod: z.array(z.string()),
});
export type DidDocument = z.infer<typeof DidDocument>;
export const paymentsDidDocument = busEndpoint("payments", "did_document", z.object({}), DidDocument);

/** GET /api/receipt: the payment-identifier id a buyer's x402 payment carried, and its payer. */
export const PAYMENT_ID_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

/**
 * The receipt of a paid read, asked after the read: by the x402 payment it was bought with
 * (the same header, any time; nothing is served again) or by the payment-identifier id it
 * carried and its payer. A settlement answered pending is here in its final form once its
 * block says so, however long after the redelivery window.
 */
export const ReceiptRequest = z.union([
  z.object({ carrier: PaymentCarrier.exclude(["authorization"]), value: z.string().min(1).max(16_384) }),
  z.object({ payer: z.string().min(1).max(128), payment_id: z.string().regex(PAYMENT_ID_PATTERN) }),
]);
export type ReceiptRequest = z.infer<typeof ReceiptRequest>;

/** Where a settled read's money stands: final, pending its block, or lost (its transfer failed after it was served). */
export const ReceiptSettlement = z.enum(["final", "pending", "lost"]);
export type ReceiptSettlement = z.infer<typeof ReceiptSettlement>;

export const ReceiptReply = z.object({
  claim_id: z.uuid(),
  route: z.string().startsWith("/"),
  amount: BaseUnits,
  rail: Rail,
  network: z.string(),
  payer: z.string(),
  /** The settling transaction (for a pending settlement: the broadcast one). */
  transaction: z.string().nullable(),
  settlement: ReceiptSettlement,
  settled_at: IsoDateTime,
  /** When a pending settlement became final or lost; null while pending (and for one final at once). */
  final_at: IsoDateTime.nullable(),
  /** The receipt headers a delivery of it carries now: PAYMENT-RESPONSE (x402; with the signed receipt) or Payment-Receipt (MPP). */
  headers: z.record(z.string(), z.string()),
});
export type ReceiptReply = z.infer<typeof ReceiptReply>;
export const paymentsReceipt = busEndpoint("payments", "receipt", ReceiptRequest, ReceiptReply);

export const paymentsCatalogue = busEndpoint("payments", "catalogue", z.object({}), CatalogueReply);
export const paymentsStatus = busEndpoint("payments", "status", z.object({}), PaymentsStatusReply);

/**
 * The operator's view of payers in arrears: a Base read answered before its block whose
 * transfer then failed is a loss recorded against its payer, whose payments are refused
 * (payment_payer_in_arrears) until the operator clears it. Operator only (BUS_GRANTS).
 */
export const ArrearsLoss = z.object({ claim_id: z.uuid(), amount: BaseUnits, reason: z.string(), detected_at: IsoDateTime });
export type ArrearsLoss = z.infer<typeof ArrearsLoss>;
/** A payer that owes (or has a loss not yet cleared) on one network: what it owes and its uncleared losses, oldest first. */
export const ArrearsPayer = z.object({
  payer: z.string(),
  network: z.string(),
  /** Base units owed: while above 0, the payer's payments are refused. */
  owed: BaseUnits,
  /** Its uncleared losses, of which `losses` holds the oldest ARREARS_LIST_LOSSES. */
  loss_count: z.number().int().min(0),
  losses: z.array(ArrearsLoss),
});
export type ArrearsPayer = z.infer<typeof ArrearsPayer>;
/** At most this many payers in a list (those owing most), each with at most ARREARS_LIST_LOSSES losses: one reply stays far below the bus's largest message. */
export const ARREARS_LIST_PAYERS = 100;
export const ARREARS_LIST_LOSSES = 10;
export const ArrearsListReply = z.object({
  payers: z.array(ArrearsPayer),
  /** Every payer in arrears; more than `payers` holds when the list was cut at ARREARS_LIST_PAYERS. */
  payers_owing: z.number().int().min(0),
});
export type ArrearsListReply = z.infer<typeof ArrearsListReply>;
/** A payer's address, in any case (the ledger keeps addresses lowercased): EVM, or a Solana or Algorand address. */
export const PayerAddress = z
  .string()
  .trim()
  .regex(/^(0x[0-9a-fA-F]{40}|[0-9A-Za-z]{32,58})$/, "must be a payer address (on Base: 0x and 40 hex digits), as arrears list shows it");
/**
 * Records a payer's losses paid (or forgiven): its uncleared losses on every network are marked
 * cleared with `why`, it owes nothing and may pay again. not_found: it had no loss to clear.
 */
export const ArrearsClearRequest = z.object({ payer: PayerAddress, why: z.string().trim().min(1).max(200) });
export type ArrearsClearRequest = z.infer<typeof ArrearsClearRequest>;
export const ArrearsClearReply = z.object({ payer: z.string(), cleared: z.number().int().min(1) });
export type ArrearsClearReply = z.infer<typeof ArrearsClearReply>;
export const paymentsArrearsList = busEndpoint("payments", "arrears.list", z.object({}), ArrearsListReply);
export const paymentsArrearsClear = busEndpoint("payments", "arrears.clear", ArrearsClearRequest, ArrearsClearReply);

/**
 * Published (core NATS, every subscriber gets it) after each settlement, so the board's
 * status view shows the last settlement time without asking payments per read.
 */
export const SETTLEMENT_EVENT_SUBJECT = "payments.events.settled";
export const SettlementEvent = z.object({ settled_at: IsoDateTime, rail: Rail, network: z.string() });
export type SettlementEvent = z.infer<typeof SettlementEvent>;

/**
 * A PaymentRails, published (core NATS) by a payments replica at start and whenever one of its
 * rails changes state, so the board's status view follows without asking payments per read.
 */
export const PAYMENT_RAILS_EVENT_SUBJECT = "payments.events.rails";
