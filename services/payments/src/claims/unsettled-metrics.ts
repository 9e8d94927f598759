import { Gauge, type Database, type Metrics } from "@board/service-kit";
import { and, count, eq, min } from "drizzle-orm";
import { claims } from "../db/schema.js";
import type * as schema from "../db/schema.js";

/** The database is asked at most this often, however many scrapes come (every replica reads the same rows). */
const REFRESH_MS = 10_000;

interface Stage {
  open: number;
  oldest: Date | null;
}

/**
 * What is left unsettled, over every replica (from the claims table, at scrape time):
 * payments_unsettled_claims{stage} and payments_oldest_unsettled_claim_timestamp_seconds{stage},
 * stage `claimed` (paid for, its read or settlement not done: a read in flight, or a claim
 * waiting for reconciliation) and `pending` (a read answered before its block whose transfer's
 * outcome is not recorded yet). Claims past their bound alert (docs/operations.md).
 */
export function gaugeUnsettledClaims(metrics: Metrics, db: Database<typeof schema>, log: { warn(obj: object, msg: string): void }): void {
  let last: { at: number; stages: Promise<Record<string, Stage> | null> } | null = null;
  const read = async (): Promise<Record<string, Stage> | null> => {
    try {
      const [[claimed], [pending]] = await Promise.all([
        db.select({ open: count(), oldest: min(claims.claimedAt) }).from(claims).where(eq(claims.state, "claimed")),
        db
          .select({ open: count(), oldest: min(claims.settledAt) })
          .from(claims)
          .where(and(eq(claims.state, "settled"), eq(claims.settlement, "pending"))),
      ]);
      return { claimed: claimed ?? { open: 0, oldest: null }, pending: pending ?? { open: 0, oldest: null } };
    } catch (err) {
      log.warn({ err: err instanceof Error ? err.message : String(err) }, "unsettled claims not read for /metrics");
      return null;
    }
  };
  const stages = () => {
    if (!last || Date.now() - last.at >= REFRESH_MS) last = { at: Date.now(), stages: read() };
    return last.stages;
  };
  const registers = [metrics.registry];
  new Gauge({
    name: "payments_unsettled_claims",
    help: "Claims not yet settled (claimed) and reads answered before their block not yet final (pending), over every replica",
    labelNames: ["stage"],
    registers,
    async collect() {
      this.reset();
      for (const [stage, s] of Object.entries((await stages()) ?? {})) this.set({ stage }, s.open);
    },
  });
  new Gauge({
    name: "payments_oldest_unsettled_claim_timestamp_seconds",
    help: "When the oldest unsettled claim (claimed) or pending settlement (pending) began; no series when there is none",
    labelNames: ["stage"],
    registers,
    async collect() {
      this.reset();
      for (const [stage, s] of Object.entries((await stages()) ?? {})) if (s.oldest) this.set({ stage }, s.oldest.getTime() / 1000);
    },
  });
}
