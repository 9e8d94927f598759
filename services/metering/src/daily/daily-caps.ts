import type { Database } from "@board/service-kit";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { daily } from "../db/schema.js";
import type * as schema from "../db/schema.js";

/** Counted: the read is within the cap and `used` is the day's count including it. */
export type DailyOutcome = { counted: true; used: number } | { counted: false };

interface Asked {
  principal: string;
  day: string;
  limit: number;
  resolve: (outcome: DailyOutcome) => void;
  reject: (err: unknown) => void;
}

/** Reads of one principal, day and limit counted by one statement: how many it granted and the count after them. */
interface CountedRow {
  principal: string;
  day: string;
  used: number;
  granted: number;
}

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * The free tier's daily counts: exact under any concurrency, one row per principal and day.
 * The reads asked in one event-loop turn are counted by one statement (under load a replica
 * is asked dozens at once, and a round trip each was most of a keyed read's cost); the
 * statement takes each row's lock once for all of that row's reads.
 */
export class DailyCaps {
  private pending: Asked[] = [];

  constructor(private readonly db: Database<typeof schema>) {}

  /**
   * Counts one read if the day's count is below `limit`. Reads of the same principal asked
   * together are granted in the order asked, as many as the cap leaves: 100 concurrent reads
   * with 25 left count exactly 25, whichever replicas they reach.
   */
  count(principal: string, day: string, limit: number): Promise<DailyOutcome> {
    return new Promise<DailyOutcome>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ principal, day, limit, resolve, reject });
    });
  }

  private async flush(): Promise<void> {
    const asked = this.pending;
    this.pending = [];
    // Reads of one principal, day and limit, in the order asked.
    const groups = new Map<string, Asked[]>();
    for (const a of asked) {
      const key = JSON.stringify([a.limit, a.principal, a.day]);
      const group = groups.get(key);
      if (group) group.push(a);
      else groups.set(key, [a]);
    }
    const byLimit = new Map<number, Asked[][]>();
    for (const group of groups.values()) byLimit.set(group[0]!.limit, [...(byLimit.get(group[0]!.limit) ?? []), group]);
    await Promise.all([...byLimit].map(([limit, limitGroups]) => this.answer(limit, limitGroups)));
  }

  private async answer(limit: number, groups: Asked[][]): Promise<void> {
    let rows: CountedRow[] = [];
    try {
      if (limit > 0) rows = await this.countGroups(limit, groups.map((g) => ({ principal: g[0]!.principal, day: g[0]!.day, n: g.length })));
    } catch (err) {
      for (const group of groups) for (const a of group) a.reject(err);
      return;
    }
    const counted = new Map(rows.map((r) => [JSON.stringify([r.principal, r.day]), r]));
    for (const group of groups) {
      // No row back: the row was already at its cap (the statement's WHERE left it alone).
      const row = counted.get(JSON.stringify([group[0]!.principal, group[0]!.day]));
      const granted = row?.granted ?? 0;
      const before = row ? row.used - row.granted : 0;
      group.forEach((a, i) => a.resolve(i < granted ? { counted: true, used: before + i + 1 } : { counted: false }));
    }
  }

  /**
   * One statement for every principal and day asked: the first reads of a day insert the row
   * with as many as the cap allows; later ones raise it toward the cap under the row's lock.
   * SET reads the row as it was, so `granted` is exactly what this statement added, however
   * many replicas count the same row at once. A row already at its cap is not touched and not
   * returned. Rows are taken in one order (principal, day) by every statement, so two replicas
   * counting the same principals never wait on each other's locks in a circle.
   */
  private async countGroups(limit: number, groups: { principal: string; day: string; n: number }[]): Promise<CountedRow[]> {
    return rowsOf<CountedRow>(
      await this.db.execute(sql`
        insert into metering.daily as d (principal, day, used, granted)
        select a.principal, a.day, least(a.n, ${limit}::int), least(a.n, ${limit}::int)
          from jsonb_to_recordset(${JSON.stringify(groups)}::jsonb) as a(principal text, day date, n int)
          order by a.principal, a.day
        on conflict (principal, day) do update
          set used = least(d.used + excluded.used, ${limit}::int), granted = least(d.used + excluded.used, ${limit}::int) - d.used
          where d.used < ${limit}::int
        returning d.principal, d.day::text as day, d.used, d.granted`),
    );
  }

  /** Gives back one counted read of that day; false if there was none to give back. */
  async refund(principal: string, day: string): Promise<boolean> {
    const rows = await this.db
      .update(daily)
      .set({ used: sql`${daily.used} - 1` })
      .where(and(eq(daily.principal, principal), eq(daily.day, day), gt(daily.used, 0)))
      .returning({ used: daily.used });
    return rows.length > 0;
  }

  /** The day's count so far (0 if the principal has not read that day). */
  async used(principal: string, day: string): Promise<number> {
    const [row] = await this.db
      .select({ used: daily.used })
      .from(daily)
      .where(and(eq(daily.principal, principal), eq(daily.day, day)))
      .limit(1);
    return row?.used ?? 0;
  }

  /** Deletes the counts of days before `beforeDay`. */
  async prune(beforeDay: string): Promise<void> {
    await this.db.delete(daily).where(lt(daily.day, beforeDay));
  }
}

