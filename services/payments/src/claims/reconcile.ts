import type { Logger } from "@board/service-kit";
import type { AnyPaymentPayload, X402Rail } from "../rails/rail.js";
import type { ClaimStore } from "./store.js";

export interface ReconcileResult {
  settled: number;
  released: number;
  open: number;
}

/**
 * Claims left open (a process stopped between claim and settlement, or a settlement whose
 * outcome was unknown) are settled by what the chain says: money moved -> settled (and
 * recorded as not served); not moved -> released, so nothing is charged and the payment,
 * if still valid, can be presented again. Claims newer than `olderThan` belong to reads
 * still in flight and are left alone.
 */
export async function reconcileOpenClaims(store: ClaimStore, rails: readonly X402Rail[], olderThan: Date, log: Logger): Promise<ReconcileResult> {
  const result: ReconcileResult = { settled: 0, released: 0, open: 0 };
  for (const claim of await store.pending(olderThan)) {
    // An MPP claim holds an EIP-3009 authorization on Base: the Base rail reads its fate.
    const rail = rails.find((r) => r.rail === (claim.rail === "mpp" ? "base" : claim.rail));
    if (!rail?.reconcile) {
      result.open++;
      continue;
    }
    try {
      const outcome = await rail.reconcile((claim.payment as { payload: AnyPaymentPayload }).payload);
      if (outcome.settled) {
        if (await store.reconciledSettled(claim.id, outcome.transaction)) result.settled++;
      } else if (await store.release(claim.id, outcome.expired ? "reconciled: never settled, expired" : "reconciled: never settled")) {
        result.released++;
      }
    } catch (err) {
      result.open++;
      // A rail may say its transaction can still land: the claim waits for a later pass.
      if ((err as { reason?: unknown }).reason === "reconcile_pending") log.info({ claim: claim.id, rail: claim.rail }, "settlement may still land; claim left open");
      else log.warn({ err, claim: claim.id, rail: claim.rail }, "reconciliation could not reach the chain; claim left open");
    }
  }
  if (result.settled + result.released + result.open > 0) log.info(result, "open claims reconciled");
  return result;
}
