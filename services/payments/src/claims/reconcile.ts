import type { Logger } from "@board/service-kit";
import type { AnyPaymentPayload } from "../rails/payload.js";
import type { X402Rail } from "../rails/rail.js";
import { failureFields } from "../rails/backend-failure.js";
import type { ClaimStore } from "./store.js";
import type { EarlyAnswers } from "./early-answers.js";

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
      else log.warn({ ...failureFields(err), claim: claim.id, rail: claim.rail }, "reconciliation could not reach the chain; claim left open");
    }
  }
  if (result.settled + result.released + result.open > 0) log.info(result, "open claims reconciled");
  return result;
}

export interface PendingResult {
  final: number;
  lost: number;
  open: number;
}

/**
 * Settlements answered before their block whose end this replica did not see (it restarted,
 * or the receipt never came) are ended by what the chain says: the authorization used ->
 * final; unused and expired -> lost (recorded against the payer); unused and still valid (its
 * transaction dropped, say by a reorganized block) -> sent again, and ended by that outcome.
 */
export async function reconcilePendingSettlements(store: ClaimStore, rails: readonly X402Rail[], early: EarlyAnswers, olderThan: Date, log: Logger): Promise<PendingResult> {
  const result: PendingResult = { final: 0, lost: 0, open: 0 };
  for (const claim of await store.pendingSettlements(olderThan)) {
    const rail = rails.find((r) => r.rail === claim.rail);
    const payload = (claim.payment as { payload: AnyPaymentPayload }).payload;
    if (!rail?.reconcile || !rail.batched) {
      result.open++;
      continue;
    }
    const charge = { network: claim.network, payer: claim.payer };
    const amount = BigInt(claim.amount);
    try {
      const outcome = await rail.reconcile(payload);
      if (outcome.settled) {
        await early.end(claim.id, charge, amount, claim.rail, { ok: true, transaction: outcome.transaction || (claim.transaction ?? "") });
        result.final++;
      } else if (outcome.expired) {
        await early.end(claim.id, charge, amount, claim.rail, { ok: false, reason: "payment_expired", detail: "its authorization expired unused" });
        result.lost++;
      } else {
        const again = await rail.batched.settle(payload);
        if ("pending" in again) throw new Error("a settlement sent again answered early");
        // Failed: someone (another replica's reconciliation, say) may have used it meanwhile.
        const used = again.ok ? null : await rail.reconcile(payload).catch(() => null);
        if (again.ok || used?.settled) {
          const transaction = again.ok ? again.transaction : used?.settled ? used.transaction : "";
          await early.end(claim.id, charge, amount, claim.rail, { ok: true, transaction });
          result.final++;
        } else if (used) {
          await early.end(claim.id, charge, amount, claim.rail, { ok: false, reason: again.reason, detail: again.detail });
          result.lost++;
        } else result.open++;
      }
    } catch (err) {
      result.open++;
      if ((err as { reason?: unknown }).reason === "reconcile_pending") log.info({ claim: claim.id, rail: claim.rail }, "a settlement served before its block may still land; left pending");
      else log.warn({ ...failureFields(err), claim: claim.id, rail: claim.rail }, "a settlement served before its block could not be reconciled; left pending");
    }
  }
  if (result.final + result.lost + result.open > 0) log.info(result, "settlements served before their block reconciled");
  return result;
}
