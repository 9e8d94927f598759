import { Delivery, type ClaimReply, type Rail, type ReadParams, type SettlementEvent } from "@board/proto";
import { BusError, type Logger } from "@board/service-kit";
import { failureFields } from "../rails/backend-failure.js";
import { sameJson, type Redeliveries } from "./redelivery.js";
import type { Settlement } from "./settled-writes.js";
import type { SettlementOutcomes } from "./settlement-outcomes.js";
import type { StoredPayment } from "./stored-payment.js";
import type { ClaimStore } from "./store.js";

export type ClaimRow = NonNullable<Awaited<ReturnType<ClaimStore["get"]>>>;

/** The read a claim asks for: its route and its parameters as the board is asked them. */
export interface AskedRead {
  path: string;
  params: ReadParams;
}

/** What a claim holds: one payment, unique by its key, for one read of a route at its price. */
export type ClaimEntry = Parameters<ClaimStore["claim"]>[0];

/**
 * The paid-read ledger over the database, whatever the rail: a payment is claimed (unique in
 * Postgres) before anything is served, closed as settled only after the read succeeded, released
 * when it failed; every settlement that ends is counted, and each one settled is announced. A
 * payment already held is a retry: Redeliveries delivers a settled one again.
 */
export class ClaimLedger {
  constructor(
    private readonly store: ClaimStore,
    private readonly log: Logger,
    private readonly onSettled: (event: SettlementEvent) => void = () => undefined,
    private readonly outcomes: SettlementOutcomes = () => undefined,
    private readonly redeliveries: Redeliveries | null = null,
  ) {}

  /**
   * A payment key already held: a retry of the same settled payment (identical signed payload,
   * same route and parameters) gets its read again; anything else is refused as used.
   */
  async heldBy(key: string, read: AskedRead, same: (stored: StoredPayment) => boolean): Promise<ClaimReply | null> {
    const prior = await this.store.byKey(key);
    if (!prior || (prior.state !== "claimed" && prior.state !== "settled")) return null;
    if (prior.state === "settled" && this.redeliveries && same(prior.payment as StoredPayment)) return this.redelivered(prior, read);
    return this.alreadyUsed();
  }

  /**
   * x402's payment-identifier: a verified payment of the same payer with the id of a settled
   * read is a retry of it; any other holder of the id refuses it. Null: the id is free.
   */
  async heldById(payer: string, paymentId: string, read: AskedRead): Promise<ClaimReply | null> {
    const earlier = await this.store.byPaymentId(payer, paymentId);
    if (earlier?.state === "settled" && this.redeliveries && earlier.route === read.path) return this.redelivered(earlier, read);
    if (earlier) throw new BusError("payment_already_used", 402, "a payment with this payment-identifier id is already in flight or was used for another read");
    return null;
  }

  private redelivered(prior: ClaimRow, read: AskedRead): Promise<ClaimReply> {
    if (!sameRead(prior, read)) throw otherRead(prior);
    return (this.redeliveries as Redeliveries).of(prior);
  }

  alreadyUsed(): never {
    throw new BusError("payment_already_used");
  }

  /** Claims the payment for its read: its claim's id, or null when its key is held already. */
  /** The new claim's id; null when the payment is held already. A payer owing (`refuseOwing`) is refused with inArrears. */
  async claim(entry: ClaimEntry): Promise<string | null> {
    const outcome = await this.store.claim(entry);
    if (!outcome.ok && outcome.reason === "payment_payer_in_arrears") throw inArrears(outcome.owed);
    return outcome.ok ? outcome.id : null;
  }

  /** Records what an open claim serves (before the money moves); the claim's row as it stands. */
  recordDelivery(claimId: string, delivery: Delivery): Promise<ClaimRow | null> {
    return this.store.recordDelivery(claimId, delivery);
  }

  get(claimId: string): Promise<ClaimRow | null> {
    return this.store.get(claimId);
  }

  /** Counts a settlement that did not settle, and gives back the error to throw. */
  unsettled(rail: string, outcome: "refused" | "failed", err: BusError, reason: string = err.code): BusError {
    this.outcomes({ rail, outcome, reason });
    return err;
  }

  notOpen(rail: string): BusError {
    return this.unsettled(rail, "refused", new BusError("payment_already_used", 402, "the claim is not open"));
  }

  /** A refused settlement: the claim is closed as failed (nothing moved). */
  async failed(claimId: string, reason: string): Promise<void> {
    await this.store.failed(claimId, reason);
  }

  /** Closes an open claim as settled with its receipt: false when it was closed meanwhile. */
  close(claimId: string, transaction: string, receipt: unknown, settlement?: Settlement): Promise<boolean> {
    return this.store.settled(claimId, transaction, receipt, settlement);
  }

  closedMeanwhile(rail: string): BusError {
    return this.unsettled(rail, "refused", new BusError("payment_already_used", 402, "the claim was closed meanwhile"));
  }

  /** Counts and announces a settled claim; the time it is said to be settled at. */
  settled(rail: Rail, amount: string, network: string): string {
    const settledAt = new Date().toISOString();
    this.outcomes({ rail, outcome: "settled", amount });
    this.onSettled({ settled_at: settledAt, rail, network });
    return settledAt;
  }

  /** A settlement the chain never saw: the claim is released (nothing moved) and the read refused as unavailable. */
  async notSent(claimId: string, rail: string, err: Error): Promise<BusError> {
    this.log.warn({ ...failureFields(err), claim: claimId, rail }, "settlement not sent; claim released");
    await this.store.release(claimId, "settlement not sent: the chain could not be asked");
    return this.unsettled(rail, "failed", new BusError("service_unavailable", 503, "settlement is unavailable at the moment; nothing was charged and the same payment may be sent again"), "settlement_not_sent");
  }

  release(claimId: string, reason: string): Promise<boolean> {
    return this.store.release(claimId, reason);
  }

  async status() {
    const s = await this.store.settlementStats();
    return { last_settlement_at: s.lastSettledAt?.toISOString() ?? null, settlements: s.settlements };
  }
}

/** A payer owing for a read served before its block whose transfer then failed. */
export const inArrears = (owed: bigint) =>
  new BusError(
    "payment_payer_in_arrears",
    402,
    `a read this payer was served before its block was not paid: its transfer failed on chain (${owed} base units owed); its payments are refused until the operator records it paid`,
  );

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
