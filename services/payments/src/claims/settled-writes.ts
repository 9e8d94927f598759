import type { Database } from "@board/service-kit";
import { sql } from "drizzle-orm";
import { claims } from "../db/schema.js";
import type * as schema from "../db/schema.js";

/** Final: on chain for good; pending: answered once broadcast, before its block. */
export type Settlement = "final" | "pending";

interface Pending {
  transaction: string;
  receipt: unknown;
  settlement: Settlement;
  resolve(settled: boolean): void;
  reject(err: unknown): void;
}

/**
 * Claims marked settled, written together: a settlement batch answers all its payments in
 * the same turn of the event loop, and their settled rows go in one statement (one round trip
 * and one commit) instead of one each. Each claim leaves `claimed` exactly once, as in the
 * single-row update: a claim already closed is not returned, and its writer is told false.
 */
export class SettledWrites {
  private pending = new Map<string, Pending>();
  private scheduled = false;

  constructor(
    private readonly db: Database<typeof schema>,
    /** The single-row write, for a claim already waiting in this turn: whichever statement comes second finds it closed. */
    private readonly single: (id: string, transaction: string, receipt: unknown, settlement: Settlement) => Promise<boolean>,
  ) {}

  write(id: string, transaction: string, receipt: unknown, settlement: Settlement = "final"): Promise<boolean> {
    if (this.pending.has(id)) return this.single(id, transaction, receipt, settlement);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { transaction, receipt, settlement, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    const records = [...batch].map(([id, { transaction, receipt, settlement }]) => ({ id, transaction, receipt, settlement }));
    try {
      const result = await this.db.execute(sql`
        update ${claims} as c
        set state = 'settled', transaction = v.transaction, receipt = v.receipt, settlement = v.settlement::payments.settlement_state,
            final_at = case when v.settlement = 'final' then now() end, settled_at = now(), updated_at = now()
        from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as v(id uuid, transaction text, receipt jsonb, settlement text)
        where c.id = v.id and c.state = 'claimed'
        returning c.id`);
      // node-postgres's result (the Database type leaves the driver's result shape open).
      const { rows } = result as unknown as { rows: { id: string }[] };
      const settled = new Set(rows.map((r) => r.id));
      for (const [id, writer] of batch) writer.resolve(settled.has(id));
    } catch (err) {
      for (const writer of batch.values()) writer.reject(err);
    }
  }
}
