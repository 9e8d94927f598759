import type { Database } from "@board/service-kit";
import { sql } from "drizzle-orm";
import type * as schema from "../db/schema.js";

/** The rows of a raw statement (node-postgres and PGlite both answer `{ rows }`). */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** A payer and the network its payments move on. */
export interface Payer {
  network: string;
  payer: string;
}

/** A payer in arrears on one network: what it owes, and its uncleared losses (the oldest, up to a limit). */
export interface PayerArrears extends Payer {
  owed: bigint;
  /** Its uncleared losses, however many `losses` holds. */
  lossCount: number;
  losses: { claimId: string; amount: bigint; reason: string; detectedAt: Date }[];
}

/** What served-but-unpaid reads stand at, for status and /metrics. */
export interface ExposureStats {
  /** Base units answered before their block and not yet final, over every payer. */
  unsettled: bigint;
  /** Base units owed by payers whose transfer failed after their read was served. */
  owed: bigint;
  /** Payers owing, whose payments are refused. */
  payersOwing: number;
  /** Losses recorded, cleared or not. */
  losses: number;
}

/**
 * The payer-exposure ledger: what each payer has been served and not yet paid on chain. A read
 * is answered before its block only when reserving its price keeps the payer's unsettled total
 * within the cap and the payer owes nothing; the reservation ends when the transfer is final,
 * or turns into a debt when it fails. One row per payer and network, so every replica sees
 * the same totals: the most a payer can take unpaid is the cap, whichever replicas serve it.
 * Lowercased addresses: EVM payers arrive checksummed or not.
 */
export class PayerExposure {
  constructor(
    private readonly db: Database<typeof schema>,
    /** The cap per payer, in the asset's base units. */
    private readonly cap: bigint,
  ) {}

  /** Reservations asked and not yet sent, one statement for all of them (`flush`). */
  private asked: { p: Payer; amount: bigint; answer(ok: boolean): void; fail(err: unknown): void }[] = [];

  /**
   * Reserves `amount` for `p` if that keeps it within the cap and it owes nothing; whether it
   * did. Reservations asked in the same turn (a batch's payments, answered at its broadcast)
   * go in one statement, a payer's second and later ones in the statements after it, so each
   * is checked against the cap with the ones before it counted.
   */
  reserve(p: Payer, amount: bigint): Promise<boolean> {
    if (amount > this.cap) return Promise.resolve(false);
    return new Promise((answer, fail) => {
      if (this.asked.length === 0) queueMicrotask(() => void this.flush());
      this.asked.push({ p: { network: p.network, payer: p.payer.toLowerCase() }, amount, answer, fail });
    });
  }

  private async flush(): Promise<void> {
    let asked = this.asked;
    this.asked = [];
    while (asked.length > 0) {
      // One reservation per payer a statement: ON CONFLICT cannot update a row twice in one.
      const round = new Map<string, (typeof asked)[number]>();
      const later: typeof asked = [];
      for (const a of asked) {
        const key = `${a.p.network} ${a.p.payer}`;
        if (round.has(key)) later.push(a);
        else round.set(key, a);
      }
      try {
        const values = [...round.values()].map((a) => ({ network: a.p.network, payer: a.p.payer, amount: a.amount.toString() }));
        const reserved = new Set(
          rowsOf<{ network: string; payer: string }>(await this.db.execute(sql`
            insert into payments.payer_exposure as e (network, payer, unsettled)
            select v.network, v.payer, v.amount from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(network text, payer text, amount numeric)
            on conflict (network, payer) do update
              set unsettled = e.unsettled + excluded.unsettled, updated_at = now()
              where e.owed = 0 and e.unsettled + excluded.unsettled <= ${this.cap.toString()}::numeric
            returning e.network, e.payer`)).map((r) => `${r.network} ${r.payer}`),
        );
        for (const [key, a] of round) a.answer(reserved.has(key));
      } catch (err) {
        for (const a of round.values()) a.fail(err);
      }
      asked = later;
    }
  }

  /** The transfer of a reserved read is final (or never went out): its reservation ends. */
  async release(p: Payer, amount: bigint): Promise<void> {
    await this.db.execute(sql`
      update payments.payer_exposure
        set unsettled = greatest(unsettled - ${amount.toString()}::numeric, 0), updated_at = now()
        where network = ${p.network} and payer = ${p.payer.toLowerCase()}`);
  }

  /** Releases many reservations in one statement (the final reads of a mined batch), summed per payer. */
  async releaseMany(releases: readonly (Payer & { amount: bigint })[]): Promise<void> {
    if (releases.length === 0) return;
    const sums = new Map<string, { network: string; payer: string; amount: bigint }>();
    for (const r of releases) {
      const key = `${r.network}|${r.payer.toLowerCase()}`;
      const sum = sums.get(key) ?? { network: r.network, payer: r.payer.toLowerCase(), amount: 0n };
      sum.amount += r.amount;
      sums.set(key, sum);
    }
    const rows = [...sums.values()].map((r) => ({ network: r.network, payer: r.payer, amount: r.amount.toString() }));
    await this.db.execute(sql`
      update payments.payer_exposure e
        set unsettled = greatest(e.unsettled - v.amount, 0), updated_at = now()
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(network text, payer text, amount numeric)
        where e.network = v.network and e.payer = v.payer`);
  }

  /**
   * The transfer of a read served before its block failed: its reservation becomes a debt and
   * the loss is recorded, once per claim (a second report of the same claim changes nothing).
   * Whether this call recorded it.
   */
  async lost(p: Payer, amount: bigint, claimId: string, reason: string, reserved: boolean): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const recorded = rowsOf(await tx.execute(sql`
        insert into payments.losses (claim_id, network, payer, amount, reason)
        values (${claimId}::uuid, ${p.network}, ${p.payer.toLowerCase()}, ${amount.toString()}::numeric, ${reason.slice(0, 200)})
        on conflict (claim_id) do nothing
        returning 1 as ok`));
      if (recorded.length === 0) return false;
      const held = reserved ? amount.toString() : "0";
      await tx.execute(sql`
        insert into payments.payer_exposure as e (network, payer, owed)
        values (${p.network}, ${p.payer.toLowerCase()}, ${amount.toString()}::numeric)
        on conflict (network, payer) do update
          set owed = e.owed + excluded.owed, unsettled = greatest(e.unsettled - ${held}::numeric, 0), updated_at = now()`);
      return true;
    });
  }

  /** What `p` owes (0 when nothing): while it is more, its payments are refused. */
  async owed(p: Payer): Promise<bigint> {
    const rows = rowsOf<{ owed: string }>(await this.db.execute(sql`
      select owed::text as owed from payments.payer_exposure where network = ${p.network} and payer = ${p.payer.toLowerCase()}`));
    return BigInt(rows[0]?.owed ?? "0");
  }

  /**
   * An operator records a payer's losses paid (or forgiven): they are marked cleared with why,
   * the payer owes nothing and may pay again. How many losses were cleared.
   */
  async clear(payer: string, why: string): Promise<number> {
    // One statement: what is taken off each network's debt is exactly the losses this statement
    // cleared, so a loss recorded meanwhile stays owed (and uncleared) rather than forgotten.
    const rows = rowsOf<{ n: string }>(
      await this.db.execute(sql`
        with cleared as (
          update payments.losses set cleared_at = now(), cleared_why = ${why.slice(0, 200)}
            where payer = ${payer.toLowerCase()} and cleared_at is null
            returning network, amount
        ), sums as (
          select network, sum(amount) as amount, count(*) as n from cleared group by network
        ), paid as (
          update payments.payer_exposure e set owed = greatest(e.owed - s.amount, 0), updated_at = now()
            from sums s where e.network = s.network and e.payer = ${payer.toLowerCase()}
            returning 1
        )
        select coalesce(sum(n), 0)::text as n from sums`),
    );
    return Number(rows[0]?.n ?? 0);
  }

  /**
   * The payers in arrears, for the operator: those owing, and any with a loss not yet cleared,
   * most owed first (at most `payers` of them), each with its uncleared losses, oldest first
   * (at most `losses` each); and how many payers are in arrears in all.
   */
  async arrears(limits: { payers: number; losses: number }): Promise<{ payers: PayerArrears[]; total: number }> {
    const rows = rowsOf<{
      network: string;
      payer: string;
      owed: string;
      total: number;
      loss_count: number;
      claim_id: string | null;
      amount: string | null;
      reason: string | null;
      detected_at: Date | string | null;
    }>(
      await this.db.execute(sql`
        with owing as (
          select network, payer from payments.payer_exposure where owed > 0
          union
          select network, payer from payments.losses where cleared_at is null
        ), listed as (
          select o.network, o.payer, coalesce(e.owed, 0) as owed, count(*) over ()::int as total
            from owing o left join payments.payer_exposure e on e.network = o.network and e.payer = o.payer
            order by coalesce(e.owed, 0) desc, o.payer, o.network
            limit ${limits.payers}
        )
        select p.network, p.payer, p.owed::text as owed, p.total,
               (select count(*)::int from payments.losses c where c.network = p.network and c.payer = p.payer and c.cleared_at is null) as loss_count,
               l.claim_id::text as claim_id, l.amount::text as amount, l.reason, l.detected_at
          from listed p
          left join lateral (
            select claim_id, amount, reason, detected_at from payments.losses
              where network = p.network and payer = p.payer and cleared_at is null
              order by detected_at, claim_id
              limit ${limits.losses}
          ) l on true
          order by p.owed desc, p.payer, p.network, l.detected_at, l.claim_id`),
    );
    const payers = new Map<string, PayerArrears>();
    for (const r of rows) {
      const key = `${r.network} ${r.payer}`;
      let entry = payers.get(key);
      if (!entry) payers.set(key, (entry = { network: r.network, payer: r.payer, owed: BigInt(r.owed), lossCount: r.loss_count, losses: [] }));
      if (r.claim_id !== null && r.detected_at !== null)
        entry.losses.push({ claimId: r.claim_id, amount: BigInt(r.amount ?? "0"), reason: r.reason ?? "", detectedAt: new Date(r.detected_at) });
    }
    return { payers: [...payers.values()], total: rows[0]?.total ?? 0 };
  }

  async stats(): Promise<ExposureStats> {
    const rows = rowsOf<{ unsettled: string; owed: string; owing: string; losses: string }>(await this.db.execute(sql`
      select coalesce(sum(unsettled), 0)::text as unsettled, coalesce(sum(owed), 0)::text as owed,
             count(*) filter (where owed > 0)::text as owing,
             (select count(*) from payments.losses)::text as losses
        from payments.payer_exposure`));
    const r = rows[0];
    return { unsettled: BigInt(r?.unsettled ?? "0"), owed: BigInt(r?.owed ?? "0"), payersOwing: Number(r?.owing ?? 0), losses: Number(r?.losses ?? 0) };
  }
}
