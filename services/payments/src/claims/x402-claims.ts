import { ErrorCode, type ClaimReply, type ClaimRequest, type Delivery, type Route, type SettleReply } from "@board/proto";
import { BusError, type Logger } from "@board/service-kit";
import { extractPaymentIdentifier, isValidPaymentId } from "@x402/extensions/payment-identifier";
import type { FacilitatorClient } from "@x402/core/server";
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { JWSSignedReceipt } from "@x402/extensions/offer-receipt";
import { failureFields } from "../rails/backend-failure.js";
import { isMalformedInput } from "../rails/malformed-input.js";
import type { SettlementOutcome as ChainOutcome } from "../rails/mpp/server-method.js";
import type { AnyPaymentPayload } from "../rails/payload.js";
import type { X402Rail } from "../rails/rail.js";
import type { ClaimReceipts, Settled } from "../receipts/claim-receipts.js";
import { receiptExtension } from "../receipts/offer-receipts.js";
import { SettlementNotSent, SettlementUnknown } from "../settlement/batcher.js";
import { matchV1, matchV2 } from "../x402/match.js";
import type { OfferBook } from "../x402/offer-book.js";
import { decodePaymentHeader } from "../x402/payment-header.js";
import { reasonCode } from "../x402/reasons.js";
import type { EarlyAnswers } from "./early-answers.js";
import { type AskedRead, type ClaimLedger, type ClaimRow } from "./ledger.js";
import { OpenedClaims, type OpenedClaim } from "./opened-claims.js";
import { sameJson, x402ReceiptHeaders } from "./redelivery.js";
import { innerPayload, type StoredPayment } from "./stored-payment.js";

/**
 * @x402/evm's errorReason for a settlement transaction that was broadcast but whose receipt
 * could not be read: not a refusal, the outcome is unknown.
 */
const SETTLEMENT_PENDING = "settlement_pending";

/** The outcome reason counted for a v1 settlement whose error leaves it unknown. */
const SETTLEMENT_UNKNOWN = "settlement_unknown";

/** x402's reason codes are snake_case words; any other errorReason is the message of an error a scheme caught. */
const REASON_CODE = /^[a-z][a-z0-9_]*$/;

/**
 * Whether a failed settlement of our facilitator may have moved money nevertheless. @x402/evm's
 * v1 scheme catches whatever its settlement threw (a receipt it could not read included: the
 * transaction may be mined) and answers the error's message with no transaction, where v2
 * says settlement_pending. Only a rail that can read the chain later (reconcile) is left to it:
 * one that cannot would hold the claim for an operator.
 */
const mayHaveSettled = (version: 1 | 2, rail: X402Rail, result: SettleResponse) =>
  version === 1 && rail.reconcile !== undefined && result.transaction === "" && !REASON_CODE.test(result.errorReason ?? "");

/**
 * x402 payments on the ledger (PAYMENT-SIGNATURE, X-PAYMENT): the header decoded and matched to
 * one of our offers, verified without the chain where the rail can (or by x402's facilitator),
 * claimed; settled by the facilitator or in the rail's batches, its receipt signed.
 */
export class X402Claims {
  /** Batched payments claimed here, kept for their settlement (opened-claims.ts). */
  private readonly opened = new OpenedClaims();

  constructor(
    private readonly book: OfferBook,
    private readonly ours: FacilitatorClient,
    private readonly ledger: ClaimLedger,
    private readonly log: Logger,
    /** Signs each settled read's receipt (offer-receipt extension); null when nothing is sold (no rail). */
    private readonly receipts: ClaimReceipts | null = null,
    /** Answers batched reads before their block, within each payer's cap; null: every read waits for its block. */
    private readonly early: EarlyAnswers | null = null,
  ) {}

  private railNamed(name: string): X402Rail | undefined {
    return this.book.rails.find((r) => r.rail === name);
  }

  /** Claims the x402 payment of `req` for the read it asks (`route`, sold at `price`). */
  async claim(req: ClaimRequest, route: Route, price: bigint, asked: AskedRead): Promise<ClaimReply> {
    const decoded = decodePaymentHeader(req.value);
    if (!decoded) throw new BusError("payment_invalid_header");

    const offers = await this.book.offers(route);
    const match = decoded.version === 2 ? matchV2(offers, decoded.payload, route.path) : matchV1(offers, decoded.payload);
    if (!match.ok) {
      // Made for a rail that is configured but down: nothing is wrong with the payment, it cannot be verified now.
      const railless = match.code === "payment_network_mismatch" || match.code === "payment_unsupported_scheme";
      const down = railless
        ? this.book.unavailable().find((r) => (decoded.version === 2 ? r.owns(decoded.payload.accepted) : r.v1Network === decoded.payload.network))
        : undefined;
      if (down) throw new BusError("service_unavailable", 503, `the ${down.rail} rail is not available at the moment`);
      throw new BusError(match.code, 402, match.detail);
    }
    const { rail } = match.offer;
    const requirement =
      decoded.version === 2
        ? match.offer.requirement
        : (await this.book.v1Accepts(route, this.book.resourceUrl(req.path, req.query ?? ""))).find((o) => o.network === rail.v1Network);
    if (!requirement) throw new BusError("payment_network_mismatch");

    const key = rail.paymentKey(decoded.payload);
    const payer = rail.payer(decoded.payload);
    if (!key || !payer) throw new BusError("payment_invalid_header", 402, "the payload lacks its authorization");

    // Verified locally, a payment already held is found by the claim's unique key below (one
    // statement on the way of every paid read); one whose authorization lapsed meanwhile, here.
    const retryOf = () => this.ledger.heldBy(key, asked, (stored) => stored.version !== "mpp" && sameJson(innerPayload(stored.payload), innerPayload(decoded.payload)));
    const local = await rail.batched?.verify(decoded.payload, requirement as PaymentRequirements);
    if (local && !local.ok) {
      const held = local.code === "payment_expired" ? await retryOf() : null;
      if (held) return held;
      this.log.info({ rail: rail.rail, reason: local.detail, code: local.code }, "payment refused");
      throw new BusError(local.code, 402, local.detail);
    }
    if (!local) {
      // The facilitator asks the chain, which would refuse a payment already used in its own
      // words: a held key is answered first (an index lookup).
      const held = await retryOf();
      if (held) return held;
      await this.verifyByFacilitator(rail, decoded.payload as PaymentPayload, requirement as PaymentRequirements);
    }

    // x402's payment-identifier: a verified payment of the same payer with the id of a settled read is a retry of it.
    const paymentId = decoded.version === 2 ? this.paymentIdentifier(decoded.payload as PaymentPayload) : null;
    if (paymentId) {
      const earlier = await this.ledger.heldById(payer, paymentId, asked);
      if (earlier) return earlier;
    }

    const stored: StoredPayment = { version: decoded.version, payload: decoded.payload, requirement, ...(local && { batched: true as const }) };
    const claimId = await this.ledger.claim({
      paymentKey: key,
      paymentId,
      rail: rail.rail,
      network: rail.network,
      route: route.path,
      amount: price,
      payer,
      payment: stored,
      // A payer owing for a read served before its block pays nothing more until it is cleared
      // (inArrears), on the rails that answer early: asked in the claim's statement.
      refuseOwing: rail.batched !== undefined && this.early !== null,
    });
    if (claimId === null) return (await retryOf()) ?? this.ledger.alreadyUsed();
    if (stored.batched) this.opened.put(claimId, rail, stored, { network: rail.network, payer, amount: price });
    return { claim_id: claimId, rail: rail.rail, network: rail.network, payer, amount: price.toString() };
  }

  /**
   * The payload's payment-identifier id (x402 extension), null without one; a malformed id is
   * refused. Clients echo the 402's declaration (with its JSON schema) in every payload: the id
   * is checked by the extension's own pattern, not by compiling that schema per payment
   * (extractAndValidatePaymentIdentifier builds an Ajv validator each call, several ms of CPU).
   */
  private paymentIdentifier(payload: PaymentPayload): string | null {
    const raw = extractPaymentIdentifier(payload, false);
    if (raw === null) return null;
    if (!isValidPaymentId(raw)) throw new BusError("payment_invalid_header", 402, "the payment-identifier id is malformed: 16 to 128 characters of letters, digits, _ and -");
    return raw;
  }

  /** x402's facilitator verifies what the rail cannot decide by itself (contract wallets, other schemes, other rails). */
  private async verifyByFacilitator(rail: X402Rail, payload: PaymentPayload, requirement: PaymentRequirements): Promise<void> {
    const facilitator = rail.facilitator(this.ours);
    let verified;
    try {
      verified = await facilitator.verify(payload, requirement);
    } catch (err) {
      if (isMalformedInput(err)) throw new BusError("payment_invalid_header", 402, "a field of the payment's payload is malformed");
      // The chain or the facilitator could not be asked: our fault, worth a retry, and nothing was claimed.
      this.log.warn({ ...failureFields(err), rail: rail.rail }, "payment verification unavailable");
      throw new BusError("service_unavailable", 503, "payment verification is unavailable");
    }
    if (!verified.isValid) {
      const code = reasonCode(verified.invalidReason);
      this.log.info({ rail: rail.rail, reason: verified.invalidReason, code }, "payment refused");
      throw new BusError(code, 402, verified.invalidReason);
    }
  }

  /** The batched payment claimed here under this id, taken for its settlement; undefined when none is kept. */
  takeOpened(claimId: string): OpenedClaim | undefined {
    return this.opened.take(claimId);
  }

  /** Forgets a batched payment claimed here (its claim released). */
  dropOpened(claimId: string): void {
    this.opened.drop(claimId);
  }

  /** Settles the x402 payment an open claim's row holds, its read recorded. */
  async settleRow(claimId: string, row: ClaimRow, stored: X402Stored): Promise<SettleReply> {
    const rail = this.railNamed(row.rail);
    if (!rail) throw this.ledger.unsettled(row.rail, "failed", new BusError("payment_settlement_failed", 402, "the claim's rail is not configured"));
    const charge = { network: rail.network, payer: row.payer, amount: BigInt(row.amount) };
    return this.settledX402(claimId, row, rail, stored, await this.outcomeOf(claimId, rail, stored, undefined, charge));
  }

  /**
   * A batched payment claimed here: it joins its batch at once while its claim records what
   * was served, and goes on chain only if the record found the claim open and holding this
   * payment (the batch awaits that beside its simulation). What is sold is still recorded
   * before the money moves; the record's round trip is no longer before the batch's.
   * `settleRow` settles what the row holds when it is another payment.
   */
  async settleRecording(claimId: string, delivery: Delivery, opened: OpenedClaim, settleRow: (row: ClaimRow) => Promise<SettleReply>): Promise<SettleReply> {
    const recorded = this.ledger.recordDelivery(claimId, delivery).then((row) => ({ row, holds: row?.state === "claimed" && sameJson(row.payment, opened.stored) }));
    const outcome = this.outcomeOf(claimId, opened.rail, opened.stored as X402Stored, recorded.then((r) => r.holds), opened.charge);
    // Answered below whichever way the record went; never left unhandled.
    outcome.catch(() => undefined);
    const { row, holds } = await recorded;
    if (!row || row.state !== "claimed") throw this.ledger.notOpen(opened.rail.rail);
    // Released and claimed again by another replica with another payload: what the row holds is settled.
    if (!holds) return settleRow(row);
    return this.settledX402(claimId, row, opened.rail, opened.stored as X402Stored, await outcome);
  }

  /** The settlement's answer as x402's SettleResponse; a BusError for what the read is refused with. */
  private async outcomeOf(claimId: string, rail: X402Rail, stored: X402Stored, ready?: Promise<boolean>, charge?: Charge): Promise<Answer> {
    try {
      return stored.batched
        ? await this.settleBatched(claimId, rail, stored.payload as AnyPaymentPayload, stored.version === 1 ? (rail.v1Network ?? rail.network) : rail.network, ready, charge)
        : await rail.facilitator(this.ours).settle(stored.payload as PaymentPayload, stored.requirement as PaymentRequirements);
    } catch (err) {
      if (err instanceof BusError) throw err;
      // Unknown outcome (the transaction may be in flight): the claim stays open for
      // reconciliation and the read is not served.
      this.log.warn({ ...failureFields(err), claim: claimId, rail: rail.rail }, "settlement outcome unknown; left for reconciliation");
      throw this.ledger.unsettled(rail.rail, "failed", new BusError("payment_settlement_failed"));
    }
  }

  /** An x402 settlement's answer made the claim's end: settled with its receipt, failed, or left open. */
  private async settledX402(claimId: string, row: ClaimRow, rail: X402Rail, stored: X402Stored, answer: Answer): Promise<SettleReply> {
    const { pending, ...result } = answer;
    if (!result.success && result.errorReason === SETTLEMENT_PENDING) {
      // Broadcast, but its receipt could not be read (RPC failure, confirmation timeout): the
      // money may have moved. As with a thrown settle, the claim stays open for reconciliation;
      // closing it as failed would leave a charge the ledger never records.
      this.log.warn({ claim: claimId, rail: rail.rail, transaction: result.transaction }, "settlement outcome unknown; left for reconciliation");
      throw this.ledger.unsettled(rail.rail, "failed", new BusError("payment_settlement_failed"), SETTLEMENT_PENDING);
    }
    if (!result.success && mayHaveSettled(stored.version, rail, result)) {
      // The same for v1's caught errors: reconciliation settles the claim if the authorization
      // was used on chain, and releases it if not (nothing moved, the payment may come again).
      this.log.warn({ claim: claimId, rail: rail.rail, reason: result.errorReason }, "v1 settlement outcome unknown; left for reconciliation");
      throw this.ledger.unsettled(rail.rail, "failed", new BusError("payment_settlement_failed"), SETTLEMENT_UNKNOWN);
    }
    if (!result.success) {
      await this.ledger.failed(claimId, result.errorMessage ?? result.errorReason ?? "settlement failed");
      const code = ErrorCode.safeParse(result.errorReason).data ?? reasonCode(result.errorReason);
      throw this.ledger.unsettled(rail.rail, "refused", new BusError(code === "payment_rejected" ? "payment_settlement_failed" : code, 402, result.errorReason), code);
    }
    const settlement = pending ? "pending" : "final";
    const signed = await this.signReceipt(row, {
      network: result.network,
      payer: result.payer ?? row.payer,
      transaction: result.transaction,
      asset: (stored.requirement as Partial<PaymentRequirements> | undefined)?.asset,
      settlement,
    });
    const receipt = { ...result, settlement, claim_id: claimId, ...(signed && { signed_receipt: signed }) };
    if (!(await this.ledger.close(claimId, result.transaction, receipt, settlement))) {
      // Closed meanwhile: what was reserved for this read is given back once its block says how it went.
      if (pending && this.early) void pending.final.then(() => this.early?.unreserve(pending.charge, pending.charge.amount), () => undefined);
      throw this.ledger.closedMeanwhile(rail.rail);
    }
    if (pending && this.early) {
      const reconcile = rail.reconcile?.bind(rail);
      const payload = stored.payload as AnyPaymentPayload;
      const onChain = () => (reconcile ? reconcile(payload) : Promise.resolve({ settled: false as const, expired: false }));
      void this.early.follow(claimId, pending.charge, pending.charge.amount, rail.rail, pending.final, onChain, { row, receipt, asset: (stored.requirement as Partial<PaymentRequirements> | undefined)?.asset });
    }
    const settledAt = this.ledger.settled(rail.rail, row.amount, result.network);
    const response = { ...result, settlement } as SettleResponse;
    const headers = x402ReceiptHeaders(signed ? { ...response, extensions: receiptExtension(signed) } : response, stored.version);
    return { headers, transaction: result.transaction, network: result.network, settled_at: settledAt };
  }

  private signReceipt(row: ClaimRow, settled: Settled): Promise<JWSSignedReceipt | null> {
    return this.receipts ? this.receipts.sign(row, settled) : Promise.resolve(null);
  }

  /**
   * Settles in the rail's next batch; the batch's answer as x402's SettleResponse. Nothing sent
   * (the chain could not be asked): the claim is released at once, the payment may come again.
   */
  private async settleBatched(claimId: string, rail: X402Rail, payload: AnyPaymentPayload, network: string, ready?: Promise<boolean>, charge?: Charge): Promise<Answer> {
    const batched = rail.batched;
    if (!batched) throw new Error(`the ${rail.rail} rail does not settle in batches`);
    // Asked once the batch is broadcast and unmined: whether this read may be answered now
    // (reserving its price within its payer's cap). Reserved and then answered final after all,
    // the reservation is given back below.
    let reserved: Promise<boolean> = Promise.resolve(false);
    const early = () => (reserved = charge && this.early ? this.early.allow(charge, charge.amount) : Promise.resolve(false));
    let outcome;
    try {
      outcome = await batched.settle(payload, ready, early);
    } catch (err) {
      if (await reserved) await this.early?.unreserve(charge as Charge, (charge as Charge).amount);
      if (err instanceof SettlementNotSent) throw await this.ledger.notSent(claimId, rail.rail, err);
      if (err instanceof SettlementUnknown) return { success: false, errorReason: SETTLEMENT_PENDING, transaction: err.transaction ?? "", network: network as Network };
      throw err;
    }
    const payer = rail.payer(payload) ?? undefined;
    if ("pending" in outcome) return { success: true, transaction: outcome.transaction, network: network as Network, ...(payer && { payer }), pending: { final: outcome.final, charge: charge as Charge } };
    if (await reserved) await this.early?.unreserve(charge as Charge, (charge as Charge).amount);
    if (outcome.ok) return { success: true, transaction: outcome.transaction, network: network as Network, ...(payer && { payer }) };
    // Our codes already: payment_settlement_failed stays itself (reasonCode would make it payment_rejected).
    return { success: false, errorReason: outcome.reason, errorMessage: outcome.detail, transaction: outcome.transaction ?? "", network: network as Network };
  }
}

/** Who pays what on which network: what a read answered before its block reserves. */
interface Charge {
  network: string;
  payer: string;
  amount: bigint;
}

/** A settlement's answer; `pending` when the read is answered before its block, its final outcome to follow. */
type Answer = SettleResponse & { pending?: { final: Promise<ChainOutcome>; charge: Charge } };

export type X402Stored = Exclude<StoredPayment, { version: "mpp" }>;

