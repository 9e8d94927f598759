import { paymentsClaim, paymentsRelease, paymentsSettle, type ClaimReply, type Delivery, type PaymentCarrier, type ReadParams, type Route, type SettleReply } from "@board/proto";
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
  /** `redelivered`: this payment had bought this very read before; it is delivered again (its number), not bought again. */
  | { kind: "served"; read: Read; receipt: SettleReply; claim: ClaimReply; redelivered?: number }
  /** The payment was refused (a payment_* reason code): answer with a fresh offer naming why. */
  | { kind: "refused"; code: string }
  /** Another service failed; nothing was served. A claim left open is reconciled by payments. */
  | { kind: "failed"; error: unknown };

/**
 * One paid read, whatever carried it (HTTP or MCP), in the order DESIGN.md fixes: claim the
 * payment before anything is served; read the board; settle (naming what the read served,
 * recorded before the money moves); serve only what settled. A failed read releases the
 * claim, so nothing is charged and the payment may be used again. A payment that bought this
 * read before (the same route and parameters) is answered by payments with its delivery: the
 * same board version is read again and served with the first receipt, nothing claimed or settled.
 */
export async function purchaseRead<Read>(
  deps: PurchaseDeps,
  order: { route: Route; query: string; params: ReadParams; payment: Payment },
  read: (again?: Delivery) => Promise<Read>,
  deliveryOf: (read: Read) => Delivery | null,
): Promise<Purchase<Read>> {
  let claim: ClaimReply;
  try {
    claim = await request(deps.nc, paymentsClaim, { path: order.route.path, query: order.query, params: order.params, ...order.payment }, { timeoutMs: deps.timeoutMs * 3 });
  } catch (err) {
    return refusedOr(err);
  }

  const redelivery = claim.redelivery;
  if (redelivery) {
    try {
      return { kind: "served", read: await read(redelivery.delivery), receipt: redelivery.receipt, claim, redelivered: redelivery.count };
    } catch (err) {
      return { kind: "failed", error: err };
    }
  }

  let body: Read;
  try {
    body = await read();
  } catch (err) {
    await release(deps, claim, "board read failed");
    return { kind: "failed", error: err };
  }

  try {
    // The parameters are recorded with what was served: a retry of this payment gets this read, not another.
    const delivery = deliveryOf(body);
    const receipt = await request(deps.nc, paymentsSettle, { claim_id: claim.claim_id, ...(delivery && { delivery: { ...delivery, params: order.params } }) }, { timeoutMs: deps.timeoutMs * 10 });
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
