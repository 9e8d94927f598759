import type { ClaimReply, SettleReply } from "@board/proto";
import { BusError, type Logger } from "@board/service-kit";
import type { JWSSignedReceipt } from "@x402/extensions/offer-receipt";
import { failureFields } from "../rails/backend-failure.js";
import type { MppRail } from "../rails/mpp/index.js";
import { commitmentOf, type ClaimReceipts, type Settled } from "../receipts/claim-receipts.js";
import { mppReceiptWithProof } from "../receipts/mpp-receipt.js";
import { SettlementNotSent } from "../settlement/batcher.js";
import type { EarlyAnswers } from "./early-answers.js";
import { type AskedRead, type ClaimLedger, type ClaimRow } from "./ledger.js";
import type { StoredPayment } from "./stored-payment.js";

export type MppStored = Extract<StoredPayment, { version: "mpp" }>;

/**
 * MPP credentials on the ledger (Authorization: Payment): mppx checks the challenge binding and
 * the signed authorization, the credential is claimed by its challenge id, and settled with its
 * Payment-Receipt (carrying our signed receipt).
 */
export class MppClaims {
  constructor(
    private readonly mpp: MppRail | null,
    /** Whether MPP is offered now (its backend answered): a credential is claimed only then; claims already made still settle. */
    private readonly offered: () => boolean,
    private readonly ledger: ClaimLedger,
    private readonly log: Logger,
    /** Signs each settled read's receipt; null when nothing is sold (no rail). */
    private readonly receipts: ClaimReceipts | null = null,
    /** Knows the payers owing for reads served before their block; null: no read is. */
    private readonly early: EarlyAnswers | null = null,
  ) {}

  /** Claims a credential for the read it asks, sold at `price`. */
  async claim(asked: AskedRead, price: bigint, credential: string): Promise<ClaimReply> {
    const path = asked.path;
    if (!this.mpp) throw new BusError("payment_unsupported_scheme", 402, "MPP is not offered here");
    if (!this.offered()) throw new BusError("service_unavailable", 503, "MPP is not available at the moment: its chain does not answer");
    // The same credential again (one claim per challenge id): a retry of a settled read is delivered again.
    const challengeId = await credentialChallengeId(credential);
    if (challengeId) {
      const held = await this.ledger.heldBy(`mpp:${challengeId}`, asked, (stored) => stored.version === "mpp" && stored.credential === credential);
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
    const key = `mpp:${verified.key}`;
    const stored: StoredPayment = { version: "mpp", credential, expected, payload: { payload: { authorization: verified.authorization } } };
    // MPP waits for its block, but a payer owing for a read it was served unpaid pays nothing more here either.
    const refuseOwing = this.early !== null;
    const claimId = await this.ledger.claim({ paymentKey: key, rail: "mpp", network: this.mpp.network, route: path, amount: price, payer: verified.payer, payment: stored, refuseOwing });
    if (claimId === null) throw new BusError("payment_already_used");
    return { claim_id: claimId, rail: "mpp", network: this.mpp.network, payer: verified.payer, amount: price.toString() };
  }

  /** Settles the credential an open claim's row holds, its read recorded. */
  async settle(claimId: string, row: ClaimRow, stored: MppStored): Promise<SettleReply> {
    if (!this.mpp) throw this.ledger.unsettled("mpp", "failed", new BusError("payment_settlement_failed", 402, "MPP is not configured"));
    let settled;
    try {
      settled = await this.mpp.settle(stored.credential, stored.expected);
    } catch (err) {
      if (err instanceof SettlementNotSent) throw await this.ledger.notSent(claimId, "mpp", err);
      this.log.warn({ ...failureFields(err), claim: claimId, rail: "mpp" }, "settlement outcome unknown; left for reconciliation");
      throw this.ledger.unsettled("mpp", "failed", new BusError("payment_settlement_failed"));
    }
    if (!settled.ok) {
      await this.ledger.failed(claimId, settled.detail);
      throw this.ledger.unsettled("mpp", "refused", new BusError(settled.reason === "payment_rejected" ? "payment_settlement_failed" : settled.reason, 402, settled.detail), settled.reason);
    }
    const signed = await this.signReceipt(row, { network: settled.network, payer: row.payer, transaction: settled.transaction });
    const receipt = await mppReceiptWithProof(settled.receipt, signed, commitmentOf(row));
    if (!(await this.ledger.close(claimId, settled.transaction, { transaction: settled.transaction, network: settled.network, receipt }))) throw this.ledger.closedMeanwhile("mpp");
    const settledAt = this.ledger.settled("mpp", row.amount, settled.network);
    return { headers: { "Payment-Receipt": receipt }, transaction: settled.transaction, network: settled.network, settled_at: settledAt };
  }

  private signReceipt(row: ClaimRow, settled: Settled): Promise<JWSSignedReceipt | null> {
    return this.receipts ? this.receipts.sign(row, settled) : Promise.resolve(null);
  }
}

/** The challenge id of an MPP credential, read without verifying it; null when it cannot be read. */
async function credentialChallengeId(header: string): Promise<string | null> {
  // mppx is loaded once MPP is used (claim is reached only where MPP is offered).
  const { Credential } = await import("mppx");
  const payment = Credential.extractPaymentScheme(header);
  if (!payment) return null;
  try {
    return Credential.deserialize(payment).challenge.id;
  } catch {
    return null;
  }
}
