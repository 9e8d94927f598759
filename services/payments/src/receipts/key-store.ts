import type { Database } from "@board/service-kit";
import { generateSigningKey } from "@board/signing-keys";
import { and, isNotNull, isNull, lte, sql } from "drizzle-orm";
import { receiptKeys, type ReceiptKeyRow } from "../db/schema.js";

/** The new key's times, or null: no key is needed after all. */
export type KeyDecision = { createdAt: Date; signsFrom: Date } | null;

/** The offer and receipt signing keys in Postgres, shared by every payments replica. */
export class ReceiptKeyStore {
  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's schema is wired by start.ts; this store names its table itself
    private readonly db: Database<any>,
    private readonly keyEncryptionKey: Uint8Array,
  ) {}

  all(): Promise<ReceiptKeyRow[]> {
    return this.db.select().from(receiptKeys);
  }

  /**
   * Creates a key when `decide`, asked again with the rows read under the lock, still wants
   * one: replicas deciding at once queue on the advisory lock and the later ones see the
   * first one's key, so a rotation makes exactly one successor. The key it succeeds is
   * retired from the moment the new one signs.
   */
  async createIf(decide: (rows: ReceiptKeyRow[]) => KeyDecision): Promise<{ created: ReceiptKeyRow | null; rows: ReceiptKeyRow[] }> {
    return this.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('payments.receipt_keys'))`);
      const rows = await tx.select().from(receiptKeys);
      const decision = decide(rows);
      if (!decision) return { created: null, rows };
      const key = await generateSigningKey(this.keyEncryptionKey);
      await tx.update(receiptKeys).set({ retiredAt: decision.signsFrom }).where(isNull(receiptKeys.retiredAt));
      const [created] = await tx
        .insert(receiptKeys)
        .values({ ...key, createdAt: decision.createdAt, signsFrom: decision.signsFrom })
        .returning();
      if (!created) throw new Error("receipt key insert returned no row");
      return { created, rows: await tx.select().from(receiptKeys) };
    });
  }

  /** Erases the private half of every key retired by `at` (it signs no more); the public half stays. Returns how many. */
  async eraseRetired(at: Date): Promise<number> {
    const erased = await this.db
      .update(receiptKeys)
      .set({ privateKeyEnc: null })
      .where(and(lte(receiptKeys.retiredAt, at), isNotNull(receiptKeys.privateKeyEnc)))
      .returning({ kid: receiptKeys.kid });
    return erased.length;
  }
}
