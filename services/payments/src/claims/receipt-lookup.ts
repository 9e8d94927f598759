import type { Rail, ReceiptReply, ReceiptRequest } from "@board/proto";
import { BusError } from "@board/service-kit";
import { getAddress, isAddress } from "viem";
import type { X402Rail } from "../rails/rail.js";
import { decodePaymentHeader } from "../x402/payment-header.js";
import type { ClaimRow } from "./ledger.js";
import { sameJson, type Redeliveries } from "./redelivery.js";
import { innerPayload, type StoredPayment } from "./stored-payment.js";
import type { ClaimStore } from "./store.js";

/**
 * A paid read's receipt, asked after the read (GET /api/receipt): by the x402 payment that
 * bought it or by its payment-identifier id and payer. Nothing is served or counted, and no
 * window applies: a settlement answered pending is found here final (or lost) once its block
 * said so, with the receipt a delivery carries now.
 */
export class ReceiptLookup {
  constructor(
    private readonly store: ClaimStore,
    /** The configured x402 rails, down or not: a payment is read by the rail that owns it. */
    private readonly rails: readonly X402Rail[],
    /** Makes the receipt headers of a settled claim (the ones a redelivery carries). */
    private readonly redeliveries: Redeliveries,
  ) {}

  async find(req: ReceiptRequest): Promise<ReceiptReply> {
    const row = "value" in req ? await this.byPayment(req.value) : await this.byPaymentId(req.payer, req.payment_id);
    if (!row) throw BusError.worded("not_found", "No paid read was bought with this payment.");
    if (row.state !== "settled" || !row.settledAt)
      throw BusError.worded(
        "not_found",
        row.state === "claimed"
          ? "This payment's read is not settled yet (in flight, or left for reconciliation against the chain): ask again in a minute."
          : "This payment bought nothing: its read was refused or failed, and nothing was charged.",
      );
    return {
      claim_id: row.id,
      route: row.route,
      amount: row.amount,
      rail: row.rail as Rail,
      network: row.network,
      payer: row.payer,
      transaction: row.transaction,
      settlement: row.settlement,
      settled_at: row.settledAt.toISOString(),
      final_at: row.finalAt?.toISOString() ?? null,
      headers: row.settlement === "lost" ? {} : await this.redeliveries.receiptHeaders(row),
    };
  }

  /** The claim holding this very payment (the same signed payload, not only its key); null when none. */
  private async byPayment(value: string): Promise<ClaimRow | null> {
    const decoded = decodePaymentHeader(value);
    if (!decoded) throw BusError.worded("invalid_request", "The payment header is not an x402 payment (base64 JSON of a v1 or v2 payload).");
    const rail =
      decoded.version === 2 ? this.rails.find((r) => r.owns(decoded.payload.accepted)) : this.rails.find((r) => r.v1Network === decoded.payload.network);
    const key = rail?.paymentKey(decoded.payload);
    if (!key) return null;
    const row = await this.store.byKey(key);
    // The key alone (payer and nonce) is public once settled: the signed payload is what shows the asker holds the payment.
    if (!row || (row.payment as StoredPayment).version === "mpp" || !sameJson(innerPayload((row.payment as StoredPayment).payload), innerPayload(decoded.payload))) return null;
    return row;
  }

  private async byPaymentId(payer: string, paymentId: string): Promise<ClaimRow | null> {
    return this.store.settledByPaymentId(spellings(payer), paymentId);
  }
}

/** The ways a payer may be written in a payload: as given, and an EVM address also checksummed and lowercased. */
function spellings(payer: string): string[] {
  if (!isAddress(payer, { strict: false })) return [payer];
  return [...new Set([payer, getAddress(payer), payer.toLowerCase()])];
}
