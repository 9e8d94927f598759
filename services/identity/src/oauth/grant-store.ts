import type { OAuthResource } from "@board/proto";
import type { Database } from "@board/service-kit";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { authorizationCodes, refreshFamilies, refreshTokens, type AuthorizationCodeRow, type RefreshFamilyRow } from "./grants.table.js";

export interface NewCode {
  codeHash: string;
  clientId: string;
  licenseId: string;
  redirectUri: string;
  codeChallenge: string;
  resources: OAuthResource[];
  scope: string;
  expiresAt: Date;
}

export interface Grant {
  clientId: string;
  licenseId: string;
  resources: OAuthResource[];
  scope: string;
}

/** A code's first redemption, or what stood in its way. */
export type CodeTaken = { kind: "taken"; code: AuthorizationCodeRow } | { kind: "reused"; code: AuthorizationCodeRow } | { kind: "unknown" };

/** A refresh token's one use, or what stood in its way. */
export type RefreshTaken = { kind: "taken"; family: RefreshFamilyRow } | { kind: "reused"; family: RefreshFamilyRow } | { kind: "revoked" | "expired" | "unknown" };

/** Authorization codes and refresh token families in Postgres: every use is one conditional update, so two replicas never both win. */
export class GrantStore {
  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's schema is wired by start.ts; this store names its tables itself
    private readonly db: Database<any>,
  ) {}

  async insertCode(code: NewCode): Promise<void> {
    await this.db.insert(authorizationCodes).values(code);
  }

  /** Marks the code used, whatever comes next: a code is presented once (a wrong verifier spends it too). */
  async takeCode(codeHash: string, now: Date): Promise<CodeTaken> {
    const [taken] = await this.db
      .update(authorizationCodes)
      .set({ usedAt: now })
      .where(and(eq(authorizationCodes.codeHash, codeHash), isNull(authorizationCodes.usedAt)))
      .returning();
    if (taken) return { kind: "taken", code: taken };
    const [seen] = await this.db.select().from(authorizationCodes).where(eq(authorizationCodes.codeHash, codeHash)).limit(1);
    return seen ? { kind: "reused", code: seen } : { kind: "unknown" };
  }

  /** A new family with its first refresh token, recorded on the code that bought it. */
  async startFamily(grant: Grant, codeHash: string, first: { tokenHash: string; expiresAt: Date }, now: Date): Promise<string> {
    return this.db.transaction(async (tx) => {
      const [family] = await tx.insert(refreshFamilies).values({ ...grant, createdAt: now }).returning({ id: refreshFamilies.id });
      if (!family) throw new Error("refresh family insert returned no row");
      await tx.update(authorizationCodes).set({ familyId: family.id }).where(eq(authorizationCodes.codeHash, codeHash));
      await tx.insert(refreshTokens).values({ tokenHash: first.tokenHash, familyId: family.id, issuedAt: now, expiresAt: first.expiresAt });
      return family.id;
    });
  }

  /** The family of a refresh token, before it is taken (to check the client and the licence first). */
  async familyOf(tokenHash: string): Promise<RefreshFamilyRow | null> {
    const [row] = await this.db
      .select({ family: refreshFamilies })
      .from(refreshTokens)
      .innerJoin(refreshFamilies, eq(refreshTokens.familyId, refreshFamilies.id))
      .where(eq(refreshTokens.tokenHash, tokenHash))
      .limit(1);
    return row?.family ?? null;
  }

  /**
   * Uses a refresh token and issues its successor in one transaction. A token already used
   * is a replay (or a race lost to a copy): the caller revokes the family.
   */
  async rotate(tokenHash: string, next: { tokenHash: string; expiresAt: Date }, now: Date): Promise<RefreshTaken> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .select({ token: refreshTokens, family: refreshFamilies })
        .from(refreshTokens)
        .innerJoin(refreshFamilies, eq(refreshTokens.familyId, refreshFamilies.id))
        .where(eq(refreshTokens.tokenHash, tokenHash))
        .limit(1)
        .for("update");
      if (!row) return { kind: "unknown" } as const;
      if (row.family.revokedAt) return { kind: "revoked" } as const;
      if (row.token.usedAt) return { kind: "reused", family: row.family } as const;
      if (row.token.expiresAt.getTime() <= now.getTime()) return { kind: "expired" } as const;
      await tx.update(refreshTokens).set({ usedAt: now }).where(eq(refreshTokens.tokenHash, tokenHash));
      await tx.insert(refreshTokens).values({ tokenHash: next.tokenHash, familyId: row.family.id, issuedAt: now, expiresAt: next.expiresAt });
      return { kind: "taken", family: row.family } as const;
    });
  }

  async revokeFamily(familyId: string, now: Date): Promise<void> {
    await this.db.update(refreshFamilies).set({ revokedAt: now }).where(and(eq(refreshFamilies.id, familyId), isNull(refreshFamilies.revokedAt)));
  }

  /**
   * Forgets what can no longer be presented: codes an hour past expiry (kept that long so a
   * late replay is still recognised and its tokens revoked), expired refresh tokens, and
   * families revoked or left without tokens.
   */
  async sweep(now: Date): Promise<void> {
    const hourAgo = new Date(now.getTime() - 3_600_000);
    await this.db.delete(authorizationCodes).where(lt(authorizationCodes.expiresAt, hourAgo));
    // A used token stays until it would have expired: presenting it again must still find it and revoke its family.
    await this.db.delete(refreshTokens).where(lt(refreshTokens.expiresAt, now));
    await this.db
      .delete(refreshFamilies)
      .where(
        or(
          lt(refreshFamilies.revokedAt, hourAgo),
          and(lt(refreshFamilies.createdAt, hourAgo), sql`not exists (select 1 from ${refreshTokens} where ${refreshTokens.familyId} = ${refreshFamilies.id})`),
        ),
      );
  }
}
