import type { CredentialRefusalCode, ResolveReply, ResolveRequest } from "@board/proto";
import { BusError } from "@board/service-kit";
import type { BoardKeys } from "./keys/board-keys.js";
import type { Licenses } from "./licenses/licenses.js";
import type { OAuth } from "./oauth/index.js";

/** The sign-in check resolve needs: a SIGN-IN-WITH-X header to a wallet session, or a refusal. */
export interface SignInHeaderCheck {
  verifyHeader(
    header: string,
  ): Promise<{ ok: true; principalId: string; expiresAt: Date } | { ok: false; code: "sign_in_invalid" | "sign_in_expired"; message: string }>;
}

export interface ResolveDeps {
  licenses: Licenses;
  boardKeys: BoardKeys;
  oauth: Pick<OAuth, "verify">;
  signIn: SignInHeaderCheck;
}

const refuse = (code: CredentialRefusalCode, message: string): ResolveReply => ({ ok: false, code, message: message.slice(0, 500) });

/**
 * identity.v1.resolve: exactly one credential is used, the strongest present, in the order
 * license key, bearer, sign-in, board key. Board keys are read from Postgres on every check
 * (a gateway keeps what it resolved a few seconds, and drops it when a retirement is
 * announced: keys/retirements.ts); licenses that verified are remembered for a few seconds
 * (VerifiedLicenses), and a revocation drops them at once.
 */
export async function resolveCredentials(deps: ResolveDeps, req: ResolveRequest): Promise<ResolveReply> {
  const c = req.credentials;
  if (c.license_key !== undefined) {
    const check = await deps.licenses.checkKey(c.license_key);
    if (!check.ok) return refuse(check.code, check.message);
    const l = check.license;
    return {
      ok: true,
      principal: {
        id: `license:${l.id}`,
        tier: l.kind === "live_feed" ? "live_license" : "scanner_license",
        license_kind: l.kind,
        expires_at: l.periodEnd.toISOString(),
      },
    };
  }
  if (c.bearer !== undefined) {
    const token = await deps.oauth.verify(c.bearer, req.resource);
    if (!token.ok) return refuse("token_invalid", token.message);
    // A token outlives nothing: once its license lapses, the token stops with it.
    const l = await deps.licenses.verifyingById(token.licenseId);
    if (!l) return refuse("token_invalid", "The license behind this token is no longer valid (lapsed or revoked). Renew a lapsed license, then get a new token from POST /oauth/token.");
    return {
      ok: true,
      // It stops at the token's expiry or the license's period end, whichever comes first.
      principal: { id: `license:${l.id}`, tier: "bearer", license_kind: l.kind, expires_at: new Date(Math.min(token.expiresAt.getTime(), l.periodEnd.getTime())).toISOString() },
    };
  }
  if (c.siwx !== undefined) {
    const session = await deps.signIn.verifyHeader(c.siwx);
    if (!session.ok) return refuse(session.code, session.message);
    return {
      ok: true,
      principal: { id: session.principalId, tier: "wallet", license_kind: null, expires_at: session.expiresAt.toISOString() },
    };
  }
  if (c.board_key !== undefined) {
    const check = await deps.boardKeys.check(c.board_key);
    return check.ok ? check : refuse(check.code, check.message);
  }
  // The gateway asks only when a credential header is present.
  throw new BusError("invalid_request", 400);
}
