import { randomUUID } from "node:crypto";
import type { NewCredentialReply, NewCredentialRequest } from "@board/proto";
import type { Database } from "@board/service-kit";
import { and, asc, eq, gt, lte, sql } from "drizzle-orm";
import { newCredentials } from "../db/schema.js";
import type * as schema from "../db/schema.js";

export type NewCredentialKind = NewCredentialRequest["kind"];

const REASON = { free_key: "key_issue_limit", wallet: "sign_in_limit" } as const satisfies Record<NewCredentialKind, string>;

/**
 * New free keys and wallet sign-ins per client address over a sliding window, in Postgres:
 * issuing is rare (a person needs one key) and a key is worth a day's 25 reads, so the count
 * must be exact at any number of gateway and metering replicas and survive their restarts,
 * which the burst buckets (in one replica's memory, a full bucket after a move) are not.
 */
export class NewCredentials {
  constructor(
    private readonly db: Database<typeof schema>,
    private readonly limits: Readonly<Record<NewCredentialKind, number>>,
    private readonly windowSeconds: number,
  ) {}

  /** Counts the new credential if the address has room for it; a wallet already counted in the window passes without counting again. */
  async admit(req: NewCredentialRequest, now: Date): Promise<NewCredentialReply> {
    const since = new Date(now.getTime() - this.windowSeconds * 1000);
    // Each key issued is new; a wallet is new once per window (its sessions are re-signed every 10 minutes).
    const owner = req.kind === "wallet" ? req.wallet : randomUUID();
    const until = (countedAt: Date) => (req.kind === "wallet" ? { counted_until: new Date(countedAt.getTime() + this.windowSeconds * 1000).toISOString() } : {});
    if (req.kind === "wallet") {
      const countedAt = await this.countedAt(req.kind, req.client, owner, since);
      if (countedAt) return { granted: true, ...until(countedAt) };
    }
    const limit = this.limits[req.kind];
    return this.db.transaction(async (tx) => {
      // Admissions of one address queue here, on every replica alike: the count and the insert are one decision.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`new_credential:${req.kind}:${req.client}`}))`);
      const of = and(eq(newCredentials.kind, req.kind), eq(newCredentials.client, req.client));
      await tx.delete(newCredentials).where(and(of, lte(newCredentials.countedAt, since)));
      const rows = await tx.select({ owner: newCredentials.owner, countedAt: newCredentials.countedAt }).from(newCredentials).where(of).orderBy(asc(newCredentials.countedAt));
      const counted = rows.find((r) => r.owner === owner);
      if (counted) return { granted: true, ...until(counted.countedAt) } as const;
      if (rows.length >= limit) {
        // Room comes back when enough of the oldest leave the window for this one to fit.
        const freedAt = rows[rows.length - limit]!.countedAt.getTime() + this.windowSeconds * 1000;
        return {
          granted: false,
          reason: REASON[req.kind],
          limit,
          window_seconds: this.windowSeconds,
          retry_after_seconds: Math.max(1, Math.ceil((freedAt - now.getTime()) / 1000)),
        } as const;
      }
      await tx.insert(newCredentials).values({ kind: req.kind, client: req.client, owner, countedAt: now });
      return { granted: true, ...until(now) } as const;
    });
  }

  /** When this owner was counted for the address, if it still counts in the window (one indexed lookup, no lock). */
  private async countedAt(kind: NewCredentialKind, client: string, owner: string, since: Date): Promise<Date | undefined> {
    const [row] = await this.db
      .select({ countedAt: newCredentials.countedAt })
      .from(newCredentials)
      .where(and(eq(newCredentials.kind, kind), eq(newCredentials.client, client), eq(newCredentials.owner, owner), gt(newCredentials.countedAt, since)))
      .limit(1);
    return row?.countedAt;
  }

  /** Forgets what no longer counts (addresses that stopped asking keep no rows). */
  async prune(now: Date): Promise<void> {
    await this.db.delete(newCredentials).where(lte(newCredentials.countedAt, new Date(now.getTime() - this.windowSeconds * 1000)));
  }
}
