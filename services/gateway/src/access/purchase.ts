import { paymentsClaim, paymentsRelease, paymentsSettle, type ClaimReply, type PaymentCarrier, type Route, type SettleReply } from "@board/proto";
import { isBusError, request, type Logger, type NatsConnection } from "@board/service-kit";

export interface PurchaseDeps {
  nc: NatsConnection;
  timeoutMs: number;
  log: Logger;
}

/** A payment as a client sent it: which carrier, and its value. */
export interface Payment {
  carrier: PaymentCarrier;
  value: string;
}

/** What buying one read (its bytes: a `Read`) came to. Only `served` has been charged, and it holds the receipt. */
export type Purchase<Read> =
  | { kind: "served"; read: Read; receipt: SettleReply; claim: ClaimReply }
  /** The payment was refused (a payment_* reason code): answer with a fresh offer naming why. */
  | { kind: "refused"; code: string }
  /** Another service failed; nothing was served. A claim left open is reconciled by payments. */
  | { kind: "failed"; error: unknown };

/**
 * One paid read, whatever carried it (HTTP or MCP), in the order DESIGN.md fixes: claim the
 * payment before anything is served; read the board; settle; serve only what settled. A
 * failed read releases the claim, so nothing is charged and the payment may be used again.
 */
export async function purchaseRead<Read>(
  deps: PurchaseDeps,
  order: { route: Route; query: string; payment: Payment },
  read: () => Promise<Read>,
): Promise<Purchase<Read>> {
  let claim: ClaimReply;
  try {
    claim = await request(deps.nc, paymentsClaim, { path: order.route.path, query: order.query, ...order.payment }, { timeoutMs: deps.timeoutMs * 3 });
  } catch (err) {
    return refusedOr(err);
  }

  let body: Read;
  try {
    body = await read();
  } catch (err) {
    await release(deps, claim, "board read failed");
    return { kind: "failed", error: err };
  }

  try {
    const receipt = await request(deps.nc, paymentsSettle, { claim_id: claim.claim_id }, { timeoutMs: deps.timeoutMs * 10 });
    return { kind: "served", read: body, receipt, claim };
  } catch (err) {
    return refusedOr(err);
  }
}

const refusedOr = (err: unknown): Purchase<never> => (isBusError(err) && err.status === 402 ? { kind: "refused", code: err.code } : { kind: "failed", error: err });

async function release(deps: PurchaseDeps, claim: ClaimReply, reason: string): Promise<void> {
  try {
    await request(deps.nc, paymentsRelease, { claim_id: claim.claim_id, reason }, { timeoutMs: deps.timeoutMs });
  } catch (err) {
    // The claim stays open; payments reconciles open claims, so it is not lost.
    deps.log.warn({ err, claim: claim.claim_id }, "release failed; left to reconciliation");
  }
}
