import type { Database } from "@board/service-kit";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { boardKeys, type BoardKeyRow } from "../db/schema.js";
import type * as schema from "../db/schema.js";
import { hashSecretKey, newSecretKey } from "./secret-key.js";

export type BoardKeyKind = BoardKeyRow["kind"];

export interface IssuedKey {
  /** The key itself: returned once, never stored. */
  key: string;
  row: BoardKeyRow;
  /** The owner held a live key before this one; it is retired now. */
  replacedPrevious: boolean;
}

/** Past the advisory lock, only a hash collision could still conflict: a few tries are plenty. */
const MAX_ATTEMPTS = 5;
const ONE_LIVE_KEY_INDEX = "board_keys_one_live_per_owner";

/** The board_keys table: issuing with the one-live-key rule, lookups by hash, and the rare last-used touch. */
export class BoardKeyStore {
  constructor(private readonly db: Database<typeof schema>) {}

  /**
   * A new key for `owner`, retiring the one it held, in one transaction. Issuers for one
   * owner queue on a transaction-scoped advisory lock, so each retires the key the previous
   * one issued; the partial unique index (one live key per kind and owner) is the guarantee
   * should anything get past it, and its conflict is retried.
   */
  async issue(kind: BoardKeyKind, owner: string, now: Date): Promise<IssuedKey> {
    for (let attempt = 1; ; attempt++) {
      const key = newSecretKey(kind);
      try {
        return await this.db.transaction(async (tx) => {
          await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`board_key:${kind}:${owner}`}))`);
          const retired = await tx
            .update(boardKeys)
            .set({ retiredAt: now })
            .where(and(eq(boardKeys.kind, kind), eq(boardKeys.owner, owner), isNull(boardKeys.retiredAt)))
            .returning({ id: boardKeys.id });
          const [row] = await tx.insert(boardKeys).values({ kind, owner, keyHash: hashSecretKey(key), createdAt: now }).returning();
          if (!row) throw new Error("key insert returned no row");
          return { key, row, replacedPrevious: retired.length > 0 };
        });
      } catch (err) {
        if (attempt < MAX_ATTEMPTS && uniqueViolation(err)) continue;
        throw err;
      }
    }
  }

  /** A unique index lookup by the key's hash: the key itself is never compared in our code. */
  async byHash(keyHash: string): Promise<BoardKeyRow | null> {
    const [row] = await this.db.select().from(boardKeys).where(eq(boardKeys.keyHash, keyHash)).limit(1);
    return row ?? null;
  }

  /** Records a use, unless one was recorded since `notBefore` (another replica may have just done it). */
  async touch(id: string, now: Date, notBefore: Date): Promise<void> {
    await this.db
      .update(boardKeys)
      .set({ lastUsedAt: now })
      .where(and(eq(boardKeys.id, id), or(isNull(boardKeys.lastUsedAt), lt(boardKeys.lastUsedAt, notBefore))));
  }
}

/** Postgres unique_violation on the one-live-key index or on key_hash, through drizzle's error wrapping. */
function uniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const pgErr = e as { code?: unknown; constraint?: unknown };
    if (pgErr.code === "23505") return pgErr.constraint === ONE_LIVE_KEY_INDEX || pgErr.constraint === "board_keys_key_hash_unique";
  }
  return false;
}
