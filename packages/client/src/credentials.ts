// The credentials of SPEC.md 5 and which header each rides on: a free or wallet key
// (X-Board-Key), a license key (X-License-Key), an OAuth bearer minted from a license, and a
// wallet sign-in session (SIGN-IN-WITH-X). A credential is sent only on the routes its tier may
// read (the route catalogue says which), so a paid read outside the tier goes straight to payment.

import { AccessToken, FreeKeyReply, type Route, type Tier } from "@board/proto";
import type { Result } from "./errors.js";
import type { Http } from "./http.js";
import type { SignInSession } from "./sign-in.js";

export type Credential =
  /** A free key from POST /api/key, or a wallet key from POST /api/auth/verify. */
  | { kind: "board_key"; key: string }
  /** A scanner or live-feed license key. */
  | { kind: "license"; key: string }
  /** A bearer token from /oauth/token. */
  | { kind: "bearer"; token: string; expires_at: Date | null }
  /** A signed sign-in-with-x session. */
  | { kind: "sign_in"; session: SignInSession };

const TIERS: Record<Credential["kind"], readonly Tier[]> = {
  board_key: ["free_key", "wallet"],
  license: ["scanner_license", "live_license"],
  bearer: ["bearer"],
  sign_in: ["wallet"],
};

/** The header carrying `credential`, or null when the route is not open to its tier. */
export function credentialHeaders(credential: Credential | null, route: Route): Record<string, string> | null {
  if (!credential || !TIERS[credential.kind].some((t) => route.tiers.includes(t))) return null;
  switch (credential.kind) {
    case "board_key":
      return { "X-Board-Key": credential.key };
    case "license":
      return { "X-License-Key": credential.key };
    case "bearer":
      return { Authorization: `Bearer ${credential.token}` };
    case "sign_in":
      return { "SIGN-IN-WITH-X": credential.session.header };
  }
}

/** When a credential stops working on its own (a token's expiry, a session's end); null: never. */
export function expiresAt(credential: Credential): Date | null {
  if (credential.kind === "bearer") return credential.expires_at;
  if (credential.kind === "sign_in") return credential.session.expires_at;
  return null;
}

/** POST /api/key: a free key for `email` (25 reads a day); posting the same email again replaces it. */
export function requestFreeKey(http: Http, email: string): Promise<Result<FreeKeyReply>> {
  return http.json(http.url("/api/key"), FreeKeyReply, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email }),
  });
}

/** POST /oauth/token, client credentials: a license's client id and key for a bearer token (1 hour). */
export function requestToken(http: Http, clientId: string, licenseKey: string): Promise<Result<AccessToken>> {
  return http.json(http.url("/oauth/token"), AccessToken, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: licenseKey }).toString(),
  });
}
