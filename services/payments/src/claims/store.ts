import type { Database } from "@board/service-kit";
import { and, count, desc, eq, gt, inArray, isNotNull, lt, max, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { claims } from "../db/schema.js";
import type * as schema from "../db/schema.js";
import { SettledWrites, type Settlement } from "./settled-writes.js";

/** The rows of a raw statement (node-postgres and PGlite both answer `{ rows }`). */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

export interface NewClaim {
  paymentKey: string;
  /** The buyer's payment-identifier id, when the payment carried one. */
  paymentId?: string | null;
  rail: string;
  network: string;
  route: string;
  amount: bigint;
  payer: string;
  payment: unknown;
  /**
   * Refused when the payer owes on this network for a read served before its block
   * (payments.payer_exposure): checked in the claim's own statement.
   */
  refuseOwing?: boolean;
}

export type ClaimOutcome = { ok: true; id: string } | { ok: false; reason: "payment_already_used" } | { ok: false; reason: "payment_payer_in_arrears"; owed: bigint };

/** Claims, settlements and releases of payments: the single-use guarantee lives in one unique key. */
export class ClaimStore {
  private readonly settledWrites: SettledWrites;

  constructor(private readonly db: Database<typeof schema>) {
    this.settledWrites = new SettledWrites(db, (id, transaction, receipt, settlement) =>
      this.leaveClaimed(id, { state: "settled", transaction, receipt, settlement, settledAt: sql`now()`, ...(settlement === "final" && { finalAt: sql`now()` }) }),
    );
  }

  /**
   * Claims a payment before anything is served. One statement: a new key is inserted; a
   * released key (its read failed) is claimed again; a claimed or settled key is refused.
   * Concurrent identical payments race on the unique key and exactly one wins. With
   * `refuseOwing`, a payer owing is refused by the same statement; a second asks why only
   * when nothing was inserted.
   */
  claim(c: NewClaim): Promise<ClaimOutcome> {
    return this.insertClaim(c, false);
  }

  private async insertClaim(c: NewClaim, again: boolean): Promise<ClaimOutcome> {
    // A payer owing inserts nothing: its debt is asked in the claim's own statement (one round
    // trip on the way of every paid read, not two), and why nothing was inserted only after.
    const unlessOwing = c.refuseOwing
      ? sql`where not exists (select 1 from payments.payer_exposure where network = ${c.network} and payer = ${c.payer.toLowerCase()} and owed > 0)`
      : sql``;
    const result = await this.db.execute(sql`
      insert into payments.claims as c (payment_key, rail, network, route, amount, payer, payment, payment_id)
      select ${c.paymentKey}, ${c.rail}, ${c.network}, ${c.route}, ${c.amount.toString()}, ${c.payer}, ${JSON.stringify(c.payment)}::jsonb, ${c.paymentId ?? null}
      ${unlessOwing}
      on conflict (payment_key) do update
        set rail = excluded.rail, network = excluded.network, route = excluded.route, amount = excluded.amount, payer = excluded.payer,
            payment = excluded.payment, payment_id = excluded.payment_id, state = 'claimed', failure = null, claimed_at = now(), updated_at = now()
        where c.state = 'released'
      returning c.id::text as id`);
    const id = rowsOf<{ id: string }>(result)[0]?.id;
    if (id !== undefined) return { ok: true, id };
    if (!c.refuseOwing) return { ok: false, reason: "payment_already_used" };
    const [why] = rowsOf<{ owed: string | null; held: boolean }>(
      await this.db.execute(sql`
        select (select owed::text from payments.payer_exposure where network = ${c.network} and payer = ${c.payer.toLowerCase()} and owed > 0) as owed,
               exists (select 1 from payments.claims where payment_key = ${c.paymentKey} and state <> 'released') as held`),
    );
    if (why?.owed != null) return { ok: false, reason: "payment_payer_in_arrears", owed: BigInt(why.owed) };
    // Neither owing nor held now: the debt was cleared (or the claim released) in between; asked once more.
    return why?.held || again ? { ok: false, reason: "payment_already_used" } : this.insertClaim(c, true);
  }

  /** The claim of a payment key (any state), or null. */
  async byKey(paymentKey: string) {
    const [row] = await this.db.select().from(claims).where(eq(claims.paymentKey, paymentKey)).limit(1);
    return row ?? null;
  }

  /** The latest open or settled claim a payer made with this payment-identifier id, or null. */
  async byPaymentId(payer: string, paymentId: string) {
    const [row] = await this.db
      .select()
      .from(claims)
      .where(and(eq(claims.payer, payer), eq(claims.paymentId, paymentId), inArray(claims.state, ["claimed", "settled"])))
      .orderBy(desc(claims.claimedAt))
      .limit(1);
    return row ?? null;
  }

  /** The latest claim a payer (in any of `payers`, its spellings) made with this payment-identifier id, settled ones first; or null. */
  async settledByPaymentId(payers: string[], paymentId: string) {
    const [row] = await this.db
      .select()
      .from(claims)
      .where(and(inArray(claims.payer, payers), eq(claims.paymentId, paymentId)))
      .orderBy(sql`${claims.state} = 'settled' desc`, desc(claims.claimedAt))
      .limit(1);
    return row ?? null;
  }

  /**
   * Records what the read served, before it is settled (so a redelivery after any failure
   * serves the same): the open claim as it now is, or null when it is not open.
   */
  async recordDelivery(id: string, delivery: unknown) {
    const [row] = await this.db.update(claims).set({ delivery, updatedAt: sql`now()` }).where(and(eq(claims.id, id), eq(claims.state, "claimed"))).returning();
    return row ?? null;
  }

  /**
   * Counts one redelivery of a settled claim, in one statement: only while it was settled
   * within `windowSeconds`, has its delivery recorded and fewer than `max` redeliveries.
   * The new count, or why not.
   */
  async redeliver(id: string, windowSeconds: number, max: number): Promise<{ ok: true; count: number } | { ok: false; reason: "expired" | "exhausted" | "unrecorded" | "lost" }> {
    const [row] = await this.db
      .update(claims)
      .set({ redeliveries: sql`${claims.redeliveries} + 1`, updatedAt: sql`now()` })
      .where(
        and(
          eq(claims.id, id),
          eq(claims.state, "settled"),
          inArray(claims.settlement, ["final", "pending"]),
          isNotNull(claims.delivery),
          gt(claims.settledAt, sql`now() - make_interval(secs => ${windowSeconds})`),
          lt(claims.redeliveries, max),
        ),
      )
      .returning({ count: claims.redeliveries });
    if (row) return { ok: true, count: row.count };
    const now = await this.get(id);
    if (now?.settlement === "lost") return { ok: false, reason: "lost" };
    if (!now?.delivery) return { ok: false, reason: "unrecorded" };
    return now.redeliveries >= max ? { ok: false, reason: "exhausted" } : { ok: false, reason: "expired" };
  }

  /**
   * Keeps `value` under `field` of a settled claim's receipt unless one is there already (a
   * receipt made for a claim settled by reconciliation): the first kept is what every later
   * redelivery carries. Returns the value kept.
   */
  async keepReceiptField(id: string, field: string, value: unknown): Promise<unknown> {
    const [row] = await this.db
      .update(claims)
      .set({ receipt: sql`coalesce(${claims.receipt}, '{}'::jsonb) || jsonb_build_object(${field}::text, ${JSON.stringify(value)}::jsonb)`, updatedAt: sql`now()` })
      .where(and(eq(claims.id, id), eq(claims.state, "settled"), sql`not coalesce(${claims.receipt} ? ${field}, false)`))
      .returning({ receipt: claims.receipt });
    if (row) return value;
    const kept = await this.get(id);
    return (kept?.receipt as Record<string, unknown> | null)?.[field] ?? value;
  }

  /** Marks a claimed payment settled (final, or pending its block); false if it was not in the claimed state. */
  settled(id: string, transaction: string, receipt: unknown, settlement: Settlement = "final"): Promise<boolean> {
    return this.settledWrites.write(id, transaction, receipt, settlement);
  }

  /**
   * A settlement answered before its block came to its end: final (its receipt replaced by the
   * final one), or lost (its transfer failed after the read was served). Only from pending, so
   * it ends once; whether this call ended it.
   */
  async settlementEnded(id: string, end: { settlement: "final"; receipt: unknown; transaction: string } | { settlement: "lost"; failure: string }): Promise<boolean> {
    const set: PgUpdateSetSource<typeof claims> =
      end.settlement === "final"
        ? { settlement: "final", receipt: end.receipt, transaction: end.transaction, finalAt: sql`now()`, updatedAt: sql`now()` }
        : { settlement: "lost", failure: end.failure.slice(0, 200), finalAt: sql`now()`, updatedAt: sql`now()` };
    const rows = await this.db
      .update(claims)
      .set(set)
      .where(and(eq(claims.id, id), eq(claims.state, "settled"), eq(claims.settlement, "pending")))
      .returning({ id: claims.id });
    return rows.length === 1;
  }

  /**
   * Pending settlements that became final, in one statement (a mined batch ends all of its
   * reads together): each its final receipt and transaction. The ids it ended (those still
   * pending), so that each reservation is released once.
   */
  async settlementsFinal(ends: readonly { id: string; receipt: unknown; transaction: string }[]): Promise<Set<string>> {
    if (ends.length === 0) return new Set();
    const result = await this.db.execute(sql`
      update ${claims} as c
      set settlement = 'final', receipt = v.receipt, transaction = v.transaction, final_at = now(), updated_at = now()
      from jsonb_to_recordset(${JSON.stringify(ends)}::jsonb) as v(id uuid, receipt jsonb, transaction text)
      where c.id = v.id and c.state = 'settled' and c.settlement = 'pending'
      returning c.id`);
    return new Set((result as unknown as { rows: { id: string }[] }).rows.map((r) => r.id));
  }

  /** Settlements answered before their block and still pending after `olderThan`: reconciliation reads their fate. */
  async pendingSettlements(olderThan: Date) {
    return this.db
      .select()
      .from(claims)
      .where(and(eq(claims.state, "settled"), eq(claims.settlement, "pending"), lt(claims.settledAt, olderThan)));
  }

  /** Reconciliation found the payment executed on chain after its claim was left open. */
  reconciledSettled(id: string, transaction: string): Promise<boolean> {
    return this.leaveClaimed(id, {
      state: "settled",
      transaction,
      receipt: { success: true, transaction, reconciled: true },
      failure: "settled on chain after the read was refused; not served",
      settledAt: sql`now()`,
    });
  }

  /** The read failed: the payment was not used and may be presented again. */
  release(id: string, reason: string): Promise<boolean> {
    return this.leaveClaimed(id, { state: "released", failure: reason.slice(0, 200) });
  }

  /** Settlement did not confirm: nothing is served, and the claim stays for reconciliation. */
  failed(id: string, reason: string): Promise<boolean> {
    return this.leaveClaimed(id, { state: "failed", failure: reason.slice(0, 200) });
  }

  /** Every transition starts from `claimed`, so a claim ends exactly once. */
  private async leaveClaimed(id: string, set: PgUpdateSetSource<typeof claims>): Promise<boolean> {
    const rows = await this.db
      .update(claims)
      .set({ ...set, updatedAt: sql`now()` })
      .where(and(eq(claims.id, id), eq(claims.state, "claimed")))
      .returning({ id: claims.id });
    return rows.length === 1;
  }

  async get(id: string) {
    const [row] = await this.db.select().from(claims).where(eq(claims.id, id)).limit(1);
    return row ?? null;
  }

  /** Claims still open after `olderThan`: a restart reconciles them against the chain. */
  async pending(olderThan: Date) {
    return this.db.select().from(claims).where(and(eq(claims.state, "claimed"), lt(claims.claimedAt, olderThan)));
  }

  async settlementStats(): Promise<{ lastSettledAt: Date | null; settlements: number }> {
    const [row] = await this.db.select({ last: max(claims.settledAt), n: count() }).from(claims).where(eq(claims.state, "settled"));
    return { lastSettledAt: row?.last ?? null, settlements: row?.n ?? 0 };
  }
}
