import { Delivery, ErrorCode, ROUTE_BY_PATH, type ClaimReply, type ClaimRequest, type ReadParams, type SettleReply, type SettlementEvent } from "@board/proto";
import { BusError, type Logger } from "@board/service-kit";
import { extractPaymentIdentifier, isValidPaymentId } from "@x402/extensions/payment-identifier";
import type { FacilitatorClient } from "@x402/core/server";
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse } from "@x402/core/types";
import type { MppRail } from "../rails/mpp/index.js";
import type { AnyPaymentPayload } from "../rails/payload.js";
import type { X402Rail } from "../rails/rail.js";
import { SettlementNotSent, SettlementUnknown } from "../settlement/batcher.js";
import { decodePaymentHeader } from "../x402/payment-header.js";
import { matchV1, matchV2 } from "../x402/match.js";
import type { OfferBook } from "../x402/offer-book.js";
import { isMalformedInput } from "../rails/malformed-input.js";
import { failureFields } from "../rails/backend-failure.js";
import { reasonCode } from "../x402/reasons.js";
import type { SettlementOutcomes } from "./settlement-outcomes.js";
import type { ClaimStore } from "./store.js";
import { sameJson, x402ReceiptHeaders, type Redeliveries } from "./redelivery.js";
import type { StoredPayment } from "./stored-payment.js";
import { OpenedClaims, type OpenedClaim } from "./opened-claims.js";
import { mppReceiptWithProof } from "../receipts/mpp-receipt.js";
import { commitmentOf, type ClaimReceipts, type Settled } from "../receipts/claim-receipts.js";
import { receiptExtension } from "../receipts/offer-receipts.js";
import type { JWSSignedReceipt } from "@x402/extensions/offer-receipt";
import type { SettlementOutcome as ChainOutcome } from "../rails/mpp/server-method.js";
import type { EarlyAnswers } from "./early-answers.js";

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
 * The paid-read ledger: a payment is verified and claimed (unique in Postgres) before
 * anything is served, settled only after the read succeeded, released when it failed.
 */
export class ClaimDesk {
  private readonly opened = new OpenedClaims();

  constructor(
    private readonly book: OfferBook,
    private readonly ours: FacilitatorClient,
    private readonly store: ClaimStore,
    private readonly log: Logger,
    private readonly mpp: MppRail | null,
    /** Whether MPP is offered now (its backend answered): a credential is claimed only then; claims already made still settle. */
    private readonly mppOffered: () => boolean,
    private readonly onSettled: (event: SettlementEvent) => void = () => undefined,
    private readonly outcomes: SettlementOutcomes = () => undefined,
    private readonly redeliveries: Redeliveries | null = null,
    /** Signs each settled read's receipt (offer-receipt extension); null when nothing is sold (no rail). */
    private readonly receipts: ClaimReceipts | null = null,
    /** Answers batched reads before their block, within each payer's cap; null: every read waits for its block. */
    private readonly early: EarlyAnswers | null = null,
  ) {}

  /**
   * A payment key already held: a retry of the same settled payment (identical signed payload,
   * same route and parameters) gets its read again; anything else is refused as used.
   */
  private async heldBy(key: string, read: AskedRead, same: (stored: StoredPayment) => boolean): Promise<ClaimReply | null> {
    const prior = await this.store.byKey(key);
    if (!prior || (prior.state !== "claimed" && prior.state !== "settled")) return null;
    if (prior.state === "settled" && this.redeliveries && same(prior.payment as StoredPayment)) {
      if (sameRead(prior, read)) return this.redeliveries.of(prior);
      throw otherRead(prior);
    }
    return this.alreadyUsed();
  }

  private alreadyUsed(): never {
    throw new BusError("payment_already_used");
  }

  /** Counts a settlement that did not settle, and gives back the error to throw. */
  private unsettled(rail: string, outcome: "refused" | "failed", err: BusError, reason: string = err.code): BusError {
    this.outcomes({ rail, outcome, reason });
    return err;
  }

  private railNamed(name: string): X402Rail | undefined {
    return this.book.rails.find((r) => r.rail === name);
  }

  async claim(req: ClaimRequest): Promise<ClaimReply> {
    const route = ROUTE_BY_PATH.get(req.path);
    if (!route || route.kind !== "paid" || route.price === null) throw new BusError("not_found", 404, `${req.path} is not a paid route`);
    const asked: AskedRead = { path: route.path, params: req.params ?? {} };
    if (req.carrier === "authorization") return this.claimMpp(asked, route.price, req.value);
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
    const retryOf = () => this.heldBy(key, asked, (stored) => stored.version !== "mpp" && sameJson(innerPayload(stored.payload), innerPayload(decoded.payload)));
    // A payer owing for a read served before its block pays nothing more until it is cleared:
    // asked beside the local verification, on the rails that answer early.
    const [local, owed] = await Promise.all([
      rail.batched?.verify(decoded.payload, requirement as PaymentRequirements),
      rail.batched && this.early ? this.early.owed({ network: rail.network, payer }) : Promise.resolve(0n),
    ]);
    if (owed > 0n) throw inArrears(owed);
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
      const earlier = await this.store.byPaymentId(payer, paymentId);
      if (earlier?.state === "settled" && this.redeliveries && earlier.route === route.path) {
        if (sameRead(earlier, asked)) return this.redeliveries.of(earlier);
        throw otherRead(earlier);
      }
      if (earlier) throw new BusError("payment_already_used", 402, "a payment with this payment-identifier id is already in flight or was used for another read");
    }

    const stored: StoredPayment = { version: decoded.version, payload: decoded.payload, requirement, ...(local && { batched: true as const }) };
    const outcome = await this.store.claim({
      paymentKey: key,
      paymentId,
      rail: rail.rail,
      network: rail.network,
      route: route.path,
      amount: route.price,
      payer,
      payment: stored,
    });
    if (!outcome.ok) return (await retryOf()) ?? this.alreadyUsed();
    if (stored.batched) this.opened.put(outcome.id, rail, stored, { network: rail.network, payer, amount: route.price });
    return { claim_id: outcome.id, rail: rail.rail, network: rail.network, payer, amount: route.price.toString() };
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

  /** An MPP credential (Authorization: Payment): mppx checks the challenge binding and the signed authorization, then it is claimed by challenge id. */
  private async claimMpp(asked: AskedRead, price: bigint, credential: string): Promise<ClaimReply> {
    const path = asked.path;
    if (!this.mpp) throw new BusError("payment_unsupported_scheme", 402, "MPP is not offered here");
    if (!this.mppOffered()) throw new BusError("service_unavailable", 503, "MPP is not available at the moment: its chain does not answer");
    // The same credential again (one claim per challenge id): a retry of a settled read is delivered again.
    const challengeId = await credentialChallengeId(credential);
    if (challengeId) {
      const held = await this.heldBy(`mpp:${challengeId}`, asked, (stored) => stored.version === "mpp" && stored.credential === credential);
      if (held) return held;
    }
    const expected = { amount: price.toString(), resource: path };
    let verified;
    try {
      verified = await this.mpp.verify(credential, expected);
    } catch (err) {
      this.log.warn({ ...failureFields(err), rail: "mpp" }, "payment verification unavailable");
      throw new BusError("service_unavailable", 503, "payment verification is unavailable");
    }
    if (!verified.ok) throw new BusError(verified.reason, 402, verified.detail);
    // MPP waits for its block, but a payer owing for a read it was served unpaid pays nothing more here either.
    const owed = this.early ? await this.early.owed({ network: this.mpp.network, payer: verified.payer }) : 0n;
    if (owed > 0n) throw inArrears(owed);
    const key = `mpp:${verified.key}`;
    const stored: StoredPayment = { version: "mpp", credential, expected, payload: { payload: { authorization: verified.authorization } } };
    const outcome = await this.store.claim({ paymentKey: key, rail: "mpp", network: this.mpp.network, route: path, amount: price, payer: verified.payer, payment: stored });
    if (!outcome.ok) throw new BusError("payment_already_used");
    return { claim_id: outcome.id, rail: "mpp", network: this.mpp.network, payer: verified.payer, amount: price.toString() };
  }

  private async settleMpp(claimId: string, row: ClaimRow, stored: Extract<StoredPayment, { version: "mpp" }>): Promise<SettleReply> {
    if (!this.mpp) throw this.unsettled("mpp", "failed", new BusError("payment_settlement_failed", 402, "MPP is not configured"));
    let settled;
    try {
      settled = await this.mpp.settle(stored.credential, stored.expected);
    } catch (err) {
      if (err instanceof SettlementNotSent) throw await this.notSent(claimId, "mpp", err);
      this.log.warn({ ...failureFields(err), claim: claimId, rail: "mpp" }, "settlement outcome unknown; left for reconciliation");
      throw this.unsettled("mpp", "failed", new BusError("payment_settlement_failed"));
    }
    if (!settled.ok) {
      await this.store.failed(claimId, settled.detail);
      throw this.unsettled("mpp", "refused", new BusError(settled.reason === "payment_rejected" ? "payment_settlement_failed" : settled.reason, 402, settled.detail), settled.reason);
    }
    const signed = await this.signReceipt(row, { network: settled.network, payer: row.payer, transaction: settled.transaction });
    const receipt = await mppReceiptWithProof(settled.receipt, signed, commitmentOf(row));
    if (!(await this.store.settled(claimId, settled.transaction, { transaction: settled.transaction, network: settled.network, receipt })))
      throw this.unsettled("mpp", "refused", new BusError("payment_already_used", 402, "the claim was closed meanwhile"));
    const settledAt = new Date().toISOString();
    this.outcomes({ rail: "mpp", outcome: "settled", amount: row.amount });
    this.onSettled({ settled_at: settledAt, rail: "mpp", network: settled.network });
    return { headers: { "Payment-Receipt": receipt }, transaction: settled.transaction, network: settled.network, settled_at: settledAt };
  }

  async settle(claimId: string, delivery?: Delivery): Promise<SettleReply> {
    const opened = this.opened.take(claimId);
    if (opened && delivery) return this.settleRecording(claimId, delivery, opened);
    // What is being sold is recorded before the money moves: whatever fails after, a retry is served it.
    const row = delivery ? await this.store.recordDelivery(claimId, delivery) : await this.store.get(claimId);
    if (!row || row.state !== "claimed") throw this.notOpen(row?.rail ?? "unknown");
    return this.settleRow(claimId, row);
  }

  /** Settles the payment an open claim's row holds, its read recorded. */
  private async settleRow(claimId: string, row: ClaimRow): Promise<SettleReply> {
    const storedAny = row.payment as StoredPayment;
    if (storedAny.version === "mpp") return this.settleMpp(claimId, row, storedAny);
    const rail = this.railNamed(row.rail);
    if (!rail) throw this.unsettled(row.rail, "failed", new BusError("payment_settlement_failed", 402, "the claim's rail is not configured"));
    const charge = { network: rail.network, payer: row.payer, amount: BigInt(row.amount) };
    return this.settledX402(claimId, row, rail, storedAny, await this.outcomeOf(claimId, rail, storedAny, undefined, charge));
  }

  private notOpen(rail: string): BusError {
    return this.unsettled(rail, "refused", new BusError("payment_already_used", 402, "the claim is not open"));
  }

  /**
   * A batched payment claimed here: it joins its batch at once while its claim records what
   * was served, and goes on chain only if the record found the claim open and holding this
   * payment (the batch awaits that beside its simulation). What is sold is still recorded
   * before the money moves; the record's round trip is no longer before the batch's.
   */
  private async settleRecording(claimId: string, delivery: Delivery, opened: OpenedClaim): Promise<SettleReply> {
    const recorded = this.store.recordDelivery(claimId, delivery).then((row) => ({ row, holds: row?.state === "claimed" && sameJson(row.payment, opened.stored) }));
    const outcome = this.outcomeOf(claimId, opened.rail, opened.stored as X402Stored, recorded.then((r) => r.holds), opened.charge);
    // Answered below whichever way the record went; never left unhandled.
    outcome.catch(() => undefined);
    const { row, holds } = await recorded;
    if (!row || row.state !== "claimed") throw this.notOpen(opened.rail.rail);
    // Released and claimed again by another replica with another payload: what the row holds is settled.
    if (!holds) return this.settleRow(claimId, row);
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
      throw this.unsettled(rail.rail, "failed", new BusError("payment_settlement_failed"));
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
      throw this.unsettled(rail.rail, "failed", new BusError("payment_settlement_failed"), SETTLEMENT_PENDING);
    }
    if (!result.success && mayHaveSettled(stored.version, rail, result)) {
      // The same for v1's caught errors: reconciliation settles the claim if the authorization
      // was used on chain, and releases it if not (nothing moved, the payment may come again).
      this.log.warn({ claim: claimId, rail: rail.rail, reason: result.errorReason }, "v1 settlement outcome unknown; left for reconciliation");
      throw this.unsettled(rail.rail, "failed", new BusError("payment_settlement_failed"), SETTLEMENT_UNKNOWN);
    }
    if (!result.success) {
      await this.store.failed(claimId, result.errorMessage ?? result.errorReason ?? "settlement failed");
      const code = ErrorCode.safeParse(result.errorReason).data ?? reasonCode(result.errorReason);
      throw this.unsettled(rail.rail, "refused", new BusError(code === "payment_rejected" ? "payment_settlement_failed" : code, 402, result.errorReason), code);
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
    if (!(await this.store.settled(claimId, result.transaction, receipt, settlement))) {
      // Closed meanwhile: what was reserved for this read is given back once its block says how it went.
      if (pending && this.early) void pending.final.then(() => this.early?.unreserve(pending.charge, pending.charge.amount), () => undefined);
      throw this.unsettled(rail.rail, "refused", new BusError("payment_already_used", 402, "the claim was closed meanwhile"));
    }
    if (pending && this.early) {
      const reconcile = rail.reconcile?.bind(rail);
      const payload = stored.payload as AnyPaymentPayload;
      const onChain = () => (reconcile ? reconcile(payload) : Promise.resolve({ settled: false as const, expired: false }));
      void this.early.follow(claimId, pending.charge, pending.charge.amount, rail.rail, pending.final, onChain, { row, receipt, asset: (stored.requirement as Partial<PaymentRequirements> | undefined)?.asset });
    }
    const settledAt = new Date().toISOString();
    this.outcomes({ rail: rail.rail, outcome: "settled", amount: row.amount });
    this.onSettled({ settled_at: settledAt, rail: rail.rail, network: result.network });
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
      if (err instanceof SettlementNotSent) throw await this.notSent(claimId, rail.rail, err);
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

  /** A settlement the chain never saw: the claim is released (nothing moved) and the read refused as unavailable. */
  private async notSent(claimId: string, rail: string, err: Error): Promise<BusError> {
    this.log.warn({ ...failureFields(err), claim: claimId, rail }, "settlement not sent; claim released");
    await this.store.release(claimId, "settlement not sent: the chain could not be asked");
    return this.unsettled(rail, "failed", new BusError("service_unavailable", 503, "settlement is unavailable at the moment; nothing was charged and the same payment may be sent again"), "settlement_not_sent");
  }

  async release(claimId: string, reason: string): Promise<boolean> {
    this.opened.drop(claimId);
    return this.store.release(claimId, reason);
  }

  async status() {
    const s = await this.store.settlementStats();
    return { last_settlement_at: s.lastSettledAt?.toISOString() ?? null, settlements: s.settlements };
  }
}

type ClaimRow = NonNullable<Awaited<ReturnType<ClaimStore["get"]>>>;

/** Who pays what on which network: what a read answered before its block reserves. */
interface Charge {
  network: string;
  payer: string;
  amount: bigint;
}

/** A settlement's answer; `pending` when the read is answered before its block, its final outcome to follow. */
type Answer = SettleResponse & { pending?: { final: Promise<ChainOutcome>; charge: Charge } };

/** A payer owing for a read served before its block whose transfer then failed. */
const inArrears = (owed: bigint) =>
  new BusError(
    "payment_payer_in_arrears",
    402,
    `a read this payer was served before its block was not paid: its transfer failed on chain (${owed} base units owed); its payments are refused until the operator records it paid`,
  );

type X402Stored = Exclude<StoredPayment, { version: "mpp" }>;

/** The signed part of an x402 payload (authorization and signature, or a transaction), whatever its version's envelope. */
const innerPayload = (payload: unknown) => (payload as { payload?: unknown } | null)?.payload;

/** The challenge id of an MPP credential, read without verifying it; null when it cannot be read. */
async function credentialChallengeId(header: string): Promise<string | null> {
  // mppx is loaded once MPP is used (claimMpp is reached only where MPP is offered).
  const { Credential } = await import("mppx");
  const payment = Credential.extractPaymentScheme(header);
  if (!payment) return null;
  try {
    return Credential.deserialize(payment).challenge.id;
  } catch {
    return null;
  }
}

/** The read a claim asks for: its route and its parameters as the board is asked them. */
interface AskedRead {
  path: string;
  params: ReadParams;
}

/**
 * Whether a settled claim bought this very read: the same route and parameters (a delivery
 * recorded without parameters had none). One with no delivery recorded is left to Redeliveries,
 * which refuses it in its own words.
 */
function sameRead(prior: { route: string; delivery: unknown }, read: AskedRead): boolean {
  if (prior.route !== read.path) return false;
  if (prior.delivery === null || prior.delivery === undefined) return true;
  const delivered = Delivery.safeParse(prior.delivery);
  return delivered.success && sameJson(delivered.data.params ?? {}, read.params);
}

/** A retry of a payment asking for another read than the one it bought: refused, nothing served or counted. */
const otherRead = (prior: { route: string }) =>
  new BusError("payment_already_used", 402, `this payment bought a read of ${prior.route} with other parameters; a retry is delivered only the read it bought: sign a new payment for a new read`);
