import { sql } from "drizzle-orm";
import { text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { identity } from "./identity-schema.js";

export const boardKeyKind = identity.enum("board_key_kind", ["free_key", "wallet"]);

/**
 * Keys for X-Board-Key: free keys (owner: the HMAC of the email) and wallet-tier keys
 * (owner: the wallet's principal id). A key is kept only as its sha256. Each owner holds at
 * most one live key: issuing a new one retires the old in the same transaction, and the
 * partial unique index makes two concurrent issues for one owner impossible to both win.
 */
export const boardKeys = identity.table(
  "board_keys",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    kind: boardKeyKind("kind").notNull(),
    /** Free key: HMAC-SHA256(emailKey, normalized email) in hex. Wallet key: "wallet:<CAIP-10>". */
    owner: text("owner").notNull(),
    keyHash: text("key_hash").notNull().unique(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    /** Touched at most hourly: idle expiry needs days, not seconds. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    /** Set when the owner was issued a newer key; a retired key never works again. */
    retiredAt: timestamp("retired_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("board_keys_one_live_per_owner").on(t.kind, t.owner).where(sql`retired_at is null`)],
);

export type BoardKeyRow = typeof boardKeys.$inferSelect;
