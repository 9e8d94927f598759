import { ROUTE_BY_PATH, type ClaimReply, type ClaimRequest, type Delivery, type SettleReply } from "@board/proto";
import { BusError } from "@board/service-kit";
import type { AskedRead, ClaimLedger, ClaimRow } from "./ledger.js";
import type { MppClaims } from "./mpp-claims.js";
import type { StoredPayment } from "./stored-payment.js";
import type { X402Claims } from "./x402-claims.js";

/**
 * The paid-read bus endpoints (claim, settle, release, status): a payment is verified and
 * claimed (unique in Postgres) before anything is served, settled only after the read
 * succeeded, released when it failed. Each rail's payments go to their own desk (x402, MPP);
 * the ledger they share holds the claims.
 */
export class ClaimDesk {
  constructor(
    private readonly ledger: ClaimLedger,
    private readonly x402: X402Claims,
    private readonly mpp: MppClaims,
  ) {}

  async claim(req: ClaimRequest): Promise<ClaimReply> {
    const route = ROUTE_BY_PATH.get(req.path);
    if (!route || route.kind !== "paid" || route.price === null) throw new BusError("not_found", 404, `${req.path} is not a paid route`);
    const asked: AskedRead = { path: route.path, params: req.params ?? {} };
    if (req.carrier === "authorization") return this.mpp.claim(asked, route.price, req.value);
    return this.x402.claim(req, route, route.price, asked);
  }

  async settle(claimId: string, delivery?: Delivery): Promise<SettleReply> {
    const opened = this.x402.takeOpened(claimId);
    if (opened && delivery) return this.x402.settleRecording(claimId, delivery, opened, (row) => this.settleRow(claimId, row));
    // What is being sold is recorded before the money moves: whatever fails after, a retry is served it.
    const row = delivery ? await this.ledger.recordDelivery(claimId, delivery) : await this.ledger.get(claimId);
    if (!row || row.state !== "claimed") throw this.ledger.notOpen(row?.rail ?? "unknown");
    return this.settleRow(claimId, row);
  }

  /** Settles the payment an open claim's row holds, its read recorded. */
  private async settleRow(claimId: string, row: ClaimRow): Promise<SettleReply> {
    const stored = row.payment as StoredPayment;
    return stored.version === "mpp" ? this.mpp.settle(claimId, row, stored) : this.x402.settleRow(claimId, row, stored);
  }

  async release(claimId: string, reason: string): Promise<boolean> {
    this.x402.dropOpened(claimId);
    return this.ledger.release(claimId, reason);
  }

  status() {
    return this.ledger.status();
  }
}
