import type { Logger } from "@board/service-kit";
import type { JWSSignedReceipt } from "@x402/extensions/offer-receipt";
import type { SettlementOutcome } from "../rails/mpp/server-method.js";
import type { ChainOutcome } from "../rails/rail.js";
import { failureFields } from "../rails/backend-failure.js";
import type { Settled } from "../receipts/claim-receipts.js";
import type { PayerExposure, Payer } from "../settlement/payer-exposure.js";
import type { ClaimStore } from "./store.js";

export interface EarlyAnswerSettings {
  /** Reads priced above this (base units) always wait for their block. */
  maxPrice: bigint;
}

/** A read served before its block whose transfer then failed, for the metrics. */
export interface Loss {
  rail: string;
  amount: bigint;
  reason: string;
}

type ClaimRow = NonNullable<Awaited<ReturnType<ClaimStore["get"]>>>;

/** A claim as served, the receipt kept with it and the asset its receipt named. */
interface Served {
  row: ClaimRow;
  receipt: Record<string, unknown>;
  asset?: string | undefined;
}

/**
 * Paid reads answered before their block (Base, batched): a read may be answered once its
 * transfer was simulated against the latest state and broadcast, when its price is at most
 * `maxPrice` and reserving it keeps its payer's served-but-unsettled total within the cap
 * (PayerExposure). Its settlement is recorded pending, its receipt says so, and when the block
 * says how the transfer went the claim becomes final (receipt re-signed) or lost: the loss is
 * recorded against the payer, whose payments are then refused until an operator clears it.
 */
export class EarlyAnswers {
  private readonly finals = new FinalWrites(
    (ends) => this.store.settlementsFinal(ends),
    (releases) => this.exposure.releaseMany(releases),
  );

  constructor(
    private readonly store: ClaimStore,
    private readonly exposure: PayerExposure,
    private readonly settings: EarlyAnswerSettings,
    private readonly log: Logger,
    private readonly sign: (row: ClaimRow, settled: Settled) => Promise<JWSSignedReceipt | null>,
    private readonly instruments: {
      onEarly(rail: string): void;
      onLoss(loss: Loss): void;
      /** How long the read waited, from its answer, for its transfer's outcome. */
      onOutcome?(rail: string, outcome: "final" | "lost" | "unknown", seconds: number): void;
    } = { onEarly: () => undefined, onLoss: () => undefined },
  ) {}

  /**
   * Whether this read may be answered before its block: its price is within `maxPrice` and
   * its payer's cap holds it (reserved now). A ledger that cannot be asked says no: the read
   * waits for its block, as it would without this.
   */
  async allow(p: Payer, amount: bigint): Promise<boolean> {
    if (amount > this.settings.maxPrice) return false;
    try {
      return await this.exposure.reserve(p, amount);
    } catch (err) {
      this.log.warn(failureFields(err), "payer exposure could not be reserved; the read waits for its block");
      return false;
    }
  }

  /** A reservation that was not used (the payment was refused or not sent before its broadcast). */
  async unreserve(p: Payer, amount: bigint): Promise<void> {
    await this.exposure.release(p, amount).catch((err: unknown) => this.log.warn(failureFields(err), "payer exposure not released; it ends when the claim is reconciled"));
  }

  /**
   * Follows a read answered before its block to its end. An outcome left unknown (no receipt)
   * leaves the claim pending for reconciliation, the reservation still held.
   */
  async follow(
    claimId: string,
    p: Payer,
    amount: bigint,
    rail: string,
    final: Promise<SettlementOutcome>,
    onChain: () => Promise<ChainOutcome>,
    /** The claim as served and the receipt kept with it: the final receipt is made from them, without reading the row again. */
    served?: Served,
  ): Promise<void> {
    this.instruments.onEarly(rail);
    const answeredAt = performance.now();
    const waited = () => (performance.now() - answeredAt) / 1000;
    let outcome: SettlementOutcome;
    try {
      outcome = await final;
    } catch (err) {
      this.instruments.onOutcome?.(rail, "unknown", waited());
      this.log.warn({ ...failureFields(err), claim: claimId, rail }, "a read served before its block has no final outcome yet; left for reconciliation");
      return;
    }
    try {
      if (!outcome.ok) {
        // Our transfer failed, but the authorization may have been used by someone else's
        // transaction (it pays our payTo whoever sends it): then the read was paid.
        // (A rail that says ours may still land has not seen the authorization used: not paid.)
        const used = await onChain().catch((err: unknown) => {
          if ((err as { reason?: unknown }).reason === "reconcile_pending") return { settled: false as const, expired: false };
          throw err;
        });
        if (used.settled) outcome = { ok: true, transaction: (used.transaction || outcome.transaction || "") as `0x${string}` };
      }
      await this.end(claimId, p, amount, rail, outcome.ok ? { ok: true, transaction: outcome.transaction } : { ok: false, reason: outcome.reason, detail: outcome.detail }, served);
      this.instruments.onOutcome?.(rail, outcome.ok ? "final" : "lost", waited());
    } catch (err) {
      this.log.error({ ...failureFields(err), claim: claimId, rail }, "the end of a settlement served before its block was not recorded; reconciliation records it");
    }
  }

  /** Records how a pending settlement ended: final (and its reservation released), or lost. */
  async end(
    claimId: string,
    p: Payer,
    amount: bigint,
    rail: string,
    outcome: { ok: true; transaction: string } | { ok: false; reason: string; detail: string },
    served?: Served,
  ): Promise<void> {
    if (outcome.ok) {
      const row = served?.row ?? (await this.store.get(claimId));
      if (!row) return;
      const kept = served?.receipt ?? (row.receipt as Record<string, unknown> | null) ?? {};
      const signed = await this.sign(row, { network: row.network, payer: row.payer, transaction: outcome.transaction, asset: served?.asset, settlement: "final" });
      const receipt = {
        ...kept,
        success: true,
        transaction: outcome.transaction,
        settlement: "final",
        ...(signed && { signed_receipt: signed }),
      };
      await this.finals.write({ id: claimId, receipt, transaction: outcome.transaction, payer: p, amount });
      return;
    }
    const failure = `served before its block; its transfer then failed: ${outcome.detail}`;
    if (!(await this.store.settlementEnded(claimId, { settlement: "lost", failure }))) return;
    await this.exposure.lost(p, amount, claimId, `${outcome.reason}: ${outcome.detail}`, true);
    this.instruments.onLoss({ rail, amount, reason: outcome.reason });
    this.log.warn({ claim: claimId, rail, payer: p.payer, amount: amount.toString(), reason: outcome.reason }, "a read served before its block was not paid: recorded against its payer, whose payments are refused until it is cleared");
  }
}

interface FinalWrite {
  id: string;
  receipt: unknown;
  transaction: string;
  payer: Payer;
  amount: bigint;
}

/**
 * Final settlements written together: a mined batch ends its reads in the same turn of the
 * event loop, and their rows (and their payers' reservations) go in two statements instead of
 * two each. A reservation is released only for a claim this write ended.
 */
class FinalWrites {
  private waiting: { write: FinalWrite; resolve(): void; reject(err: unknown): void }[] = [];

  constructor(
    private readonly end: (ends: { id: string; receipt: unknown; transaction: string }[]) => Promise<Set<string>>,
    private readonly release: (releases: (Payer & { amount: bigint })[]) => Promise<void>,
  ) {}

  write(write: FinalWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.waiting.push({ write, resolve, reject }) === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting;
    this.waiting = [];
    try {
      const ended = await this.end(batch.map(({ write: w }) => ({ id: w.id, receipt: w.receipt, transaction: w.transaction })));
      await this.release(batch.filter(({ write: w }) => ended.has(w.id)).map(({ write: w }) => ({ ...w.payer, amount: w.amount })));
      for (const w of batch) w.resolve();
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
