import { FREE_KEY_IDLE_DAYS, type FreeKeyReply, type FreeKeyRequest, type Principal, type SignInVerifyReply } from "@board/proto";
import type { BoardKeyRow } from "../db/schema.js";
import { emailDigest } from "./email.js";
import { hashSecretKey, secretKindOf } from "./secret-key.js";
import type { BoardKeyStore } from "./store.js";
import { freeTierTerms } from "./terms.js";

const DAY_MS = 86_400_000;
/** last_used_at is written at most this often per key: idle expiry is counted in days. */
export const TOUCH_INTERVAL_MS = 3_600_000;

export type BoardKeyCheck =
  | { ok: true; principal: Principal }
  | { ok: false; code: "key_unknown" | "key_expired"; message: string };

type WalletKeyReply = Extract<SignInVerifyReply, { ok: true }>;

/** A signed-in wallet, as the sign-in check reports it. */
export interface SignedInWallet {
  principalId: string;
  address: string;
  chainId: string;
}

const REFUSAL = {
  unknown: "X-Board-Key is not a key of this service. Request a free key at POST /api/key.",
  licenseOnWrongHeader: "X-Board-Key carries a license key: send it as X-License-Key instead.",
  replaced: {
    free_key: "This key was replaced by a newer key for the same email. Use the newest key, or post the email to POST /api/key again.",
    wallet: "This key was replaced by a newer key for the same wallet address. Use the newest key, or sign in again at /api/auth/verify.",
  },
  expired: {
    free_key: `This key went unused for more than ${FREE_KEY_IDLE_DAYS} days and expired; request a new key at POST /api/key.`,
    wallet: `This key went unused for more than ${FREE_KEY_IDLE_DAYS} days and expired; sign in again at /api/auth/verify for a new one.`,
  },
} as const;

/** Keys for X-Board-Key: free keys by email, wallet-tier keys by signed-in address, and their checks. */
export class BoardKeys {
  constructor(
    private readonly store: BoardKeyStore,
    private readonly emailKey: Uint8Array,
    private readonly now: () => Date,
    /** Told the principal id of an owner whose key was just retired (announced to the gateways before the new key is answered). */
    private readonly onRetired: (principalId: string) => void = () => undefined,
  ) {}

  /** POST /api/key: a fresh key for the email (kept only as its HMAC), retiring the one it held. */
  async issueFree(req: FreeKeyRequest): Promise<FreeKeyReply> {
    const owner = emailDigest(this.emailKey, req.email);
    const issued = await this.store.issue("free_key", owner, this.now());
    if (issued.replacedPrevious) this.onRetired(freeKeyPrincipalId(owner));
    return {
      ...freeTierTerms("free_key"),
      key: issued.key,
      tier: "free_key",
      created_at: issued.row.createdAt.toISOString(),
      replaced_previous: issued.replacedPrevious,
    };
  }

  /** POST /api/auth/verify, once the signature checked out: a wallet-tier key for the address, retiring the one it held. */
  async issueWallet(wallet: SignedInWallet): Promise<WalletKeyReply> {
    const issued = await this.store.issue("wallet", wallet.principalId, this.now());
    if (issued.replacedPrevious) this.onRetired(wallet.principalId);
    return {
      ok: true,
      ...freeTierTerms("wallet"),
      key: issued.key,
      tier: "wallet",
      address: wallet.address,
      chainId: wallet.chainId,
      created_at: issued.row.createdAt.toISOString(),
      replaced_previous: issued.replacedPrevious,
    };
  }

  /** X-Board-Key: live (not retired), used within the idle limit; records the use at most hourly. */
  async check(key: string): Promise<BoardKeyCheck> {
    const kind = secretKindOf(key);
    if (kind === "license") return { ok: false, code: "key_unknown", message: REFUSAL.licenseOnWrongHeader };
    const row = kind ? await this.store.byHash(hashSecretKey(key)) : null;
    if (!row || row.kind !== kind) return { ok: false, code: "key_unknown", message: REFUSAL.unknown };
    if (row.retiredAt) return { ok: false, code: "key_unknown", message: REFUSAL.replaced[row.kind] };
    const now = this.now();
    const lastUse = lastUsed(row);
    if (now.getTime() - lastUse.getTime() > FREE_KEY_IDLE_DAYS * DAY_MS) return { ok: false, code: "key_expired", message: REFUSAL.expired[row.kind] };
    const notBefore = new Date(now.getTime() - TOUCH_INTERVAL_MS);
    if (lastUse < notBefore) await this.store.touch(row.id, now, notBefore);
    return {
      ok: true,
      principal: {
        // The daily count is the owner's (the email's digest), as a wallet's is its address's: a key issued again for the same email counts on.
        id: row.kind === "free_key" ? freeKeyPrincipalId(row.owner) : row.owner,
        tier: row.kind,
        license_kind: null,
        expires_at: null,
      },
    };
  }
}

/** A free key's principal: its owner, never the key (keys are re-issued on demand; the 25 a day are the email's). */
export const freeKeyPrincipalId = (owner: string): string => `email:${owner}`;

export const lastUsed = (row: Pick<BoardKeyRow, "lastUsedAt" | "createdAt">): Date => row.lastUsedAt ?? row.createdAt;
