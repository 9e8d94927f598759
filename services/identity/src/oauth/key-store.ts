import type { Database } from "@board/service-kit";
import { isNull, lte, sql } from "drizzle-orm";
import { generateSigningKey } from "@board/signing-keys";
import { signingKeys, type SigningKeyRow } from "./signing-keys.table.js";

/** The new key's times, or null: no key is needed after all. */
export type KeyDecision = { createdAt: Date; signsFrom: Date } | null;

/** The signing keys in Postgres, shared by every identity replica. */
export class SigningKeyStore {
  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's schema is wired by start.ts; this store names its table itself
    private readonly db: Database<any>,
    private readonly keyEncryptionKey: Uint8Array,
  ) {}

  all(): Promise<SigningKeyRow[]> {
    return this.db.select().from(signingKeys);
  }

  /**
   * Creates a key when `decide`, asked again with the rows read under the lock, still
   * wants one. Replicas deciding at once queue on the advisory lock; all but the first
   * then see its key and create none, so a rotation makes exactly one successor. The key
   * it succeeds is retired from the moment the new one signs.
   */
  async createIf(decide: (rows: SigningKeyRow[]) => KeyDecision): Promise<{ created: SigningKeyRow | null; rows: SigningKeyRow[] }> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('identity.signing_keys'))`);
      const rows = await tx.select().from(signingKeys);
      const decision = decide(rows);
      if (!decision) return { created: null, rows };
      const key = await generateSigningKey(this.keyEncryptionKey);
      await tx.update(signingKeys).set({ retiredAt: decision.signsFrom }).where(isNull(signingKeys.retiredAt));
      const [created] = await tx
        .insert(signingKeys)
        .values({ ...key, createdAt: decision.createdAt, signsFrom: decision.signsFrom })
        .returning();
      if (!created) throw new Error("signing key insert returned no row");
      return { created, rows: await tx.select().from(signingKeys) };
    });
  }

  /** Deletes keys retired at or before `cutoff` (their tokens have all expired); returns how many. */
  async deleteRetiredBefore(cutoff: Date): Promise<number> {
    const gone = await this.db.delete(signingKeys).where(lte(signingKeys.retiredAt, cutoff)).returning({ kid: signingKeys.kid });
    return gone.length;
  }
}
