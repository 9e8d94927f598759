import { baseEnv, OperatorCliEnv, parseEnv } from "@board/service-kit";
import { z } from "zod";

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/**
 * Identity's configuration. IDENTITY_SECRET is the one root secret: the email HMAC key, the
 * sign-in nonce key and the signing-key encryption key are all derived from it (secrets.ts).
 * A bad value stops the service at start; the message names the variable, never its value.
 */
export const IdentityEnv = baseEnv(9103)
  .extend({
    IDENTITY_SECRET: z
      .string({ error: "is required (at least 32 characters of random material)" })
      .min(32, "must be at least 32 characters")
      .describe(
        "32+ characters; HKDF derives from it the email hashing key, the sign-in nonce key and the key that encrypts OAuth signing keys at rest. Changing it retires every free key's email link, every open sign-in and every stored signing key.",
      ),
    /** Where clients reach the gateway: the sign-in domain and the OAuth issuer and audience. */
    PUBLIC_BASE_URL: httpUrl.default("http://localhost:8080"),
    /** How long a signing key signs before its successor takes over. */
    OAUTH_ROTATE_AFTER_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** A new signing key is in the JWKS this long before it signs (longer than any client's JWKS cache). */
    OAUTH_PUBLISH_LEAD_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  })
  .superRefine((env, ctx) => {
    if (env.OAUTH_ROTATE_AFTER_DAYS * 86_400 <= env.OAUTH_PUBLISH_LEAD_SECONDS)
      ctx.addIssue({ code: "custom", path: ["OAUTH_PUBLISH_LEAD_SECONDS"], message: "must be shorter than OAUTH_ROTATE_AFTER_DAYS" });
  });
export type IdentityEnv = z.infer<typeof IdentityEnv>;

export const loadEnv = (): IdentityEnv => parseEnv(IdentityEnv, process.env, "identity");

/**
 * The license command-line tool: it talks only to identity, over the bus, as the operator (the
 * one credential the bus lets issue, list, cancel or renew licences): its nkey seed is given
 * as NATS_NKEY_SEED, or as a file (NATS_NKEY_SEED_FILE, such as the launcher's
 * .data/nats/auth/operator.nk or a mounted Secret), so it stays out of shell history.
 */
export const LicenseCliEnv = OperatorCliEnv;
export type LicenseCliEnv = z.infer<typeof LicenseCliEnv>;

export const loadLicenseCliEnv = (): LicenseCliEnv => parseEnv(LicenseCliEnv, process.env, "license");
