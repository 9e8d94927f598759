import type { X402Rail } from "../rails/rail.js";
import type { StoredPayment } from "./stored-payment.js";

/** A batched payment this replica claimed, as its claim row holds it. */
export interface OpenedClaim {
  rail: X402Rail;
  /** The stored payment as written (its JSON form, what the row's `payment` reads back as). */
  stored: StoredPayment;
  /** Who pays what on which network. */
  charge: { network: string; payer: string; amount: bigint };
  at: number;
}

/** Longer than a read takes between its claim and its settlement (the gateway gives up after 30 s). */
const KEEP_MS = 120_000;
/** At most this many are kept; the oldest go first. */
const MAX_KEPT = 10_000;

/**
 * Batched payments claimed here and not yet settled or released here: their settlement can
 * join a batch at once, while the claim records what was served (claim-desk.ts). A claim
 * settled by another replica is dropped after KEEP_MS; one not found here is read from its row.
 */
export class OpenedClaims {
  private readonly byId = new Map<string, OpenedClaim>();

  put(id: string, rail: X402Rail, stored: StoredPayment, charge: OpenedClaim["charge"]): void {
    const now = performance.now();
    for (const [key, claim] of this.byId) {
      if (now - claim.at < KEEP_MS && this.byId.size < MAX_KEPT) break;
      this.byId.delete(key);
    }
    this.byId.set(id, { rail, stored: JSON.parse(JSON.stringify(stored)) as StoredPayment, charge, at: now });
  }

  /** The claim, removed; undefined if not claimed here (or kept too long). */
  take(id: string): OpenedClaim | undefined {
    const claim = this.byId.get(id);
    this.byId.delete(id);
    return claim && performance.now() - claim.at < KEEP_MS ? claim : undefined;
  }

  drop(id: string): void {
    this.byId.delete(id);
  }
}
