import { randomUUID } from "node:crypto";
import { ACCESS_TOKEN_SCOPE, ACCESS_TOKEN_SECONDS, LicenseKind } from "@board/proto";
import { jwtVerify, SignJWT, type JWTHeaderParameters } from "jose";
import { z } from "zod";
import type { JoseKey } from "@board/signing-keys";

/** RFC 9068: the media type of a JWT access token, in its `typ` header. */
export const ACCESS_TOKEN_TYP = "at+jwt";

/** The private claim naming the license a token was issued for. */
export const LicenseClaim = z.object({ id: z.string().min(1), kind: LicenseKind });
export type LicenseClaim = z.infer<typeof LicenseClaim>;

export interface TokenAudience {
  issuer: string;
  audience: string;
}

export interface IssueInput {
  issuer: string;
  /** The resources it is for (RFC 8707): one, or several when the client asked for several. */
  audience: string | string[];
  kid: string;
  privateKey: JoseKey;
  clientId: string;
  /** Whose licence it carries: the licence's client id (the same as clientId for client credentials). */
  subject?: string;
  license: LicenseClaim;
  now: Date;
}

/** An RFC 9068 access token: ES256, one hour, scope board:live, carrying its license. */
export function issueAccessToken(i: IssueInput): Promise<string> {
  const iat = Math.floor(i.now.getTime() / 1000);
  return new SignJWT({ client_id: i.clientId, scope: ACCESS_TOKEN_SCOPE, lic: { id: i.license.id, kind: i.license.kind } })
    .setProtectedHeader({ alg: "ES256", kid: i.kid, typ: ACCESS_TOKEN_TYP })
    .setIssuer(i.issuer)
    .setAudience(i.audience)
    .setSubject(i.subject ?? i.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_SECONDS)
    .setJti(randomUUID())
    .sign(i.privateKey);
}

export type Verified = { ok: true; licenseId: string; kind: LicenseKind; expiresAt: Date };
export type VerifyResult = Verified | { ok: false; message: string };

/** Thrown by a key lookup that finds no published key for the token's kid. */
export class UnknownKeyError extends Error {}

export interface VerifyInput extends TokenAudience {
  /** The published key with this kid; throws UnknownKeyError when there is none. */
  keyFor: (kid: string) => Promise<JoseKey>;
  now: Date;
}

/**
 * Verifies a bearer. The algorithm is pinned to ES256 (so alg none, and HS256 keyed with
 * the public key, are refused before any key is used); typ, iss, aud and exp are checked
 * against the given clock with no leeway; the license claim must be well formed.
 */
export async function verifyAccessToken(token: string, v: VerifyInput): Promise<VerifyResult> {
  try {
    const { payload } = await jwtVerify(
      token,
      async (header: JWTHeaderParameters) => {
        if (!header.kid) throw new UnknownKeyError("the token names no signing key (kid)");
        return v.keyFor(header.kid);
      },
      {
        algorithms: ["ES256"],
        issuer: v.issuer,
        audience: v.audience,
        typ: ACCESS_TOKEN_TYP,
        requiredClaims: ["iss", "aud", "sub", "exp", "iat", "jti", "client_id", "scope", "lic"],
        currentDate: v.now,
      },
    );
    const lic = LicenseClaim.safeParse(payload.lic);
    if (!lic.success) return refused("the token carries no valid license claim");
    if (payload.scope !== ACCESS_TOKEN_SCOPE) return refused(`the token's scope is not ${ACCESS_TOKEN_SCOPE}`);
    // requiredClaims guarantees exp; jose has checked it is a number in the future.
    return { ok: true, licenseId: lic.data.id, kind: lic.data.kind, expiresAt: new Date((payload.exp ?? 0) * 1000) };
  } catch (err) {
    return refused(describe(err));
  }
}

const refused = (message: string) => ({ ok: false as const, message });

/** jose's errors by code, as plain sentences (never the token or the key). */
function describe(err: unknown): string {
  if (err instanceof UnknownKeyError) return err.message;
  const code = typeof err === "object" && err !== null && "code" in err ? String(err.code) : "";
  const claim = typeof err === "object" && err !== null && "claim" in err ? String(err.claim) : "";
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return "the token has expired; request a new one from /oauth/token";
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "the token's algorithm is not ES256";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "the token's signature does not verify";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (claim === "iss") return "the token was not issued by this service";
      if (claim === "aud") return "the token is not for this resource: ask for a token with this resource (RFC 8707 resource parameter)";
      if (claim === "typ") return "the token is not an access token (typ at+jwt)";
      return claim ? `the token's ${claim} claim is missing or invalid` : "the token's claims are invalid";
    default:
      return "the bearer is not a valid access token";
  }
}
