import { Credentials, identityResolve, type CredentialRefusalCode, type OAuthResource, type Principal, type Route } from "@board/proto";
import { request, type NatsConnection } from "@board/service-kit";
import { RefusedCredentials } from "./refused-credentials.js";
import { ResolvedPrincipals } from "./resolved-principals.js";

export type Access =
  | { kind: "principal"; principal: Principal }
  | { kind: "refused"; code: CredentialRefusalCode; message: string };

/** A header too long or malformed to be one of ours is refused the way an unknown one is. */
const MALFORMED: Record<keyof Credentials, { code: CredentialRefusalCode; message: string }> = {
  license_key: { code: "license_unknown", message: "X-License-Key is not a license key of this service. Check the key." },
  bearer: { code: "token_invalid", message: "The bearer token is malformed. Get a fresh one from POST /oauth/token." },
  siwx: { code: "sign_in_invalid", message: "SIGN-IN-WITH-X is malformed. Sign the challenge of a fresh 402 and send its base64 payload." },
  board_key: { code: "key_unknown", message: "X-Board-Key is not a key of this service. Request a free key at POST /api/key." },
};

/**
 * Turns the request's credentials into a principal (or a refusal) through identity, or from
 * `known` (license, bearer and board-key principals identity verified, for a few seconds). A bearer must
 * be for `resource` (the HTTP API unless told). Throws BusError when identity fails.
 */
export async function resolveAccess(
  nc: NatsConnection,
  timeoutMs: number,
  creds: Credentials,
  known?: ResolvedPrincipals,
  resource: OAuthResource = "api",
  refused?: RefusedCredentials,
): Promise<Access> {
  const parsed = Credentials.safeParse(creds);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path[0] as keyof Credentials | undefined;
    return { kind: "refused", ...MALFORMED[field ?? "board_key"] };
  }
  const key = known ? ResolvedPrincipals.keyOf(parsed.data, resource) : null;
  const hit = key ? known!.get(key) : undefined;
  if (hit) return { kind: "principal", principal: hit };
  // Refused a moment ago as unknown or invalid: refused again without asking identity.
  const refusedKey = refused ? RefusedCredentials.keyOf(parsed.data, resource) : null;
  const again = refusedKey ? refused!.get(refusedKey) : undefined;
  if (again) return { kind: "refused", ...again };
  const reply = await request(nc, identityResolve, { credentials: parsed.data, ...(resource !== "api" ? { resource } : {}) }, { timeoutMs });
  if (!reply.ok) {
    if (refusedKey) refused!.remember(refusedKey, { code: reply.code, message: reply.message });
    return { kind: "refused", code: reply.code, message: reply.message };
  }
  if (key) known!.remember(key, reply.principal);
  return { kind: "principal", principal: reply.principal };
}

/** Whether a principal's tier reads this route without paying. The live feed also needs a live-feed license behind a bearer. */
export function entitles(route: Route, principal: Principal): boolean {
  if (!route.tiers.includes(principal.tier)) return false;
  if (route.kind === "live" && principal.tier === "bearer") return principal.license_kind === "live_feed";
  return true;
}

export const isFreeTier = (p: Principal) => p.tier === "free_key" || p.tier === "wallet";
