import type { Database } from "@board/service-kit";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import { daily } from "../db/schema.js";
import type * as schema from "../db/schema.js";

/** Counted: the read is within the cap and `used` is the day's count including it. */
export type DailyOutcome = { counted: true; used: number } | { counted: false };

/** The free tier's daily counts: exact under any concurrency, one row per principal and day. */
export class DailyCaps {
  /** Built once: a free read pays no query building on its path. */
  private readonly counting: ReturnType<typeof prepareCount>;

  constructor(private readonly db: Database<typeof schema>) {
    this.counting = prepareCount(db);
  }

  /**
   * Counts one read if the day's count is below `limit`, in one statement (see prepareCount):
   * concurrent reads queue on the row lock, so 100 of them with 25 left count exactly 25.
   */
  async count(principal: string, day: string, limit: number): Promise<DailyOutcome> {
    const rows = await this.counting.execute({ principal, day, limit });
    const row = rows[0];
    return row ? { counted: true, used: row.used } : { counted: false };
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

/**
 * The first read of a day inserts the row; later ones increment it only while it is below
 * the limit, under the row lock of the upsert.
 */
function prepareCount(db: Database<typeof schema>) {
  return db
    .insert(daily)
    .values({ principal: sql.placeholder("principal"), day: sql.placeholder("day"), used: 1 })
    .onConflictDoUpdate({
      target: [daily.principal, daily.day],
      set: { used: sql`${daily.used} + 1` },
      setWhere: sql`${daily.used} < ${sql.placeholder("limit")}`,
    })
    .returning({ used: daily.used })
    .prepare("metering_daily_count");
}
