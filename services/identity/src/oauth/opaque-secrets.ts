import { randomBytes } from "node:crypto";
import { hashSecretKey } from "../keys/secret-key.js";

/**
 * The OAuth secrets identity hands out besides licence keys, told apart by prefix: an
 * authorization code, a refresh token and a registered client's secret. Each is 32 random
 * bytes in base64url, shown once and stored only as its sha256 (hashSecretKey).
 */
export const OAUTH_SECRET_PREFIX = { code: "bac_", refresh: "brt_", clientSecret: "bcs_" } as const;

export const newOAuthSecret = (kind: keyof typeof OAUTH_SECRET_PREFIX): string => OAUTH_SECRET_PREFIX[kind] + randomBytes(32).toString("base64url");

export const hashOAuthSecret = hashSecretKey;

/** A registered client's id: public, so it only needs to be unique and unguessable enough not to collide. */
export const newRegisteredClientId = (): string => `bcl_${randomBytes(12).toString("hex")}`;
