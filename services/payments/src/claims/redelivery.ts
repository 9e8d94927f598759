import { Delivery, type ClaimReply, type Rail } from "@board/proto";
import { BusError } from "@board/service-kit";
import { encodePaymentResponseHeader } from "@x402/core/http";
import type { Network, SettleResponse } from "@x402/core/types";
import type { JWSSignedReceipt } from "@x402/extensions/offer-receipt";
import { commitmentOf, type ClaimReceipts, type Settled } from "../receipts/claim-receipts.js";
import { mppReceiptWithProof } from "../receipts/mpp-receipt.js";
import { receiptExtension } from "../receipts/offer-receipts.js";
import type { StoredPayment } from "./stored-payment.js";
import type { ClaimStore } from "./store.js";

export interface RedeliverySettings {
  /** A settled read may be delivered again this long after its settlement... */
  windowSeconds: number;
  /** ...at most this many times. */
  max: number;
}

type ClaimRow = NonNullable<Awaited<ReturnType<ClaimStore["get"]>>>;

/** The receipt headers of an x402 settlement: PAYMENT-RESPONSE, and X-PAYMENT-RESPONSE for v1 clients (x402-fetch 1.x reads it). */
export function x402ReceiptHeaders(result: SettleResponse, version: 1 | 2 | "mpp"): Record<string, string> {
  const header = encodePaymentResponseHeader(result);
  return version === 1 ? { "PAYMENT-RESPONSE": header, "X-PAYMENT-RESPONSE": header } : { "PAYMENT-RESPONSE": header };
}

/** Deep equality of JSON values, whatever the order of object keys (Postgres' jsonb keeps none). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * A retry of a payment that was settled gets the read it bought, again: the same board
 * version and bytes (its recorded delivery), the same receipt, nothing claimed or charged.
 * Bounded by a window after settlement and a count, both refused with their own reason.
 */
export class Redeliveries {
  constructor(
    private readonly store: ClaimStore,
    private readonly settings: RedeliverySettings,
    /** The Payment-Receipt of an MPP settlement found by reconciliation (no reply was sent then). */
    private readonly mppReceipt: ((transaction: `0x${string}`) => string) | null,
    /** Signs the receipt of a claim settled by reconciliation (no receipt was made then). */
    private readonly receipts: ClaimReceipts | null = null,
  ) {}

  /** Delivers `prior` (a settled claim) again, or refuses with a documented reason. */
  async of(prior: ClaimRow): Promise<ClaimReply> {
    const counted = await this.store.redeliver(prior.id, this.settings.windowSeconds, this.settings.max);
    if (!counted.ok) {
      if (counted.reason === "expired")
        throw new BusError("payment_redelivery_expired", 402, `this payment's read was delivered; it may be delivered again for ${this.settings.windowSeconds} s after settlement, and that has passed`);
      if (counted.reason === "lost")
        throw new BusError("payment_settlement_failed", 402, "this payment's transfer failed on chain after its read was served: it is not delivered again");
      if (counted.reason === "exhausted")
        throw new BusError("payment_redelivery_exhausted", 402, `this payment's read was already delivered again ${this.settings.max} times`);
      throw new BusError("payment_already_used", 402, "this payment was used and what it bought was not recorded");
    }
    const delivery = Delivery.parse(prior.delivery);
    const settledAt = (prior.settledAt ?? prior.updatedAt).toISOString();
    return {
      claim_id: prior.id,
      rail: prior.rail as Rail,
      network: prior.network,
      payer: prior.payer,
      amount: prior.amount,
      redelivery: {
        delivery,
        receipt: { headers: await this.receiptHeaders(prior), transaction: prior.transaction ?? "", network: prior.network, settled_at: settledAt },
        count: counted.count,
      },
    };
  }

  /**
   * The receipt headers the first delivery carried, its settlement as it stands now. A claim
   * settled by reconciliation had none: its receipt is made now, once, and kept for every later
   * redelivery (and GET /api/receipt).
   */
  async receiptHeaders(prior: ClaimRow): Promise<Record<string, string>> {
    const stored = prior.payment as StoredPayment;
    const receipt = (prior.receipt ?? {}) as { network?: string; receipt?: string; payer?: string; signed_receipt?: JWSSignedReceipt };
    const settled = { network: receipt.network ?? prior.network, payer: receipt.payer ?? prior.payer, transaction: prior.transaction ?? "" };
    if (stored.version === "mpp") {
      if (typeof receipt.receipt === "string") return { "Payment-Receipt": receipt.receipt };
      if (!this.mppReceipt || !prior.transaction) return {};
      const made = await mppReceiptWithProof(this.mppReceipt(prior.transaction as `0x${string}`), await this.sign(prior, settled), commitmentOf(prior));
      return { "Payment-Receipt": String(await this.store.keepReceiptField(prior.id, "receipt", made)) };
    }
    let signed = receipt.signed_receipt ?? null;
    if (!signed) {
      const made = await this.sign(prior, settled);
      if (made) signed = (await this.store.keepReceiptField(prior.id, "signed_receipt", made)) as JWSSignedReceipt;
    }
    // Where its settlement stands now: a pending one that became final carries its final receipt.
    const result = { success: true, transaction: settled.transaction, network: settled.network as Network, payer: settled.payer, settlement: prior.settlement === "pending" ? "pending" : "final" } as SettleResponse;
    return x402ReceiptHeaders(signed ? { ...result, extensions: receiptExtension(signed) } : result, stored.version);
  }

  private sign(prior: ClaimRow, settled: Settled): Promise<JWSSignedReceipt | null> {
    return this.receipts ? this.receipts.sign(prior, settled) : Promise.resolve(null);
  }
}
