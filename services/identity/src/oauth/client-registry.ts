import { createHash, timingSafeEqual } from "node:crypto";
import { ACCESS_TOKEN_SCOPE, type RegisteredClient, type RegisterReply, type RegistrationErrorCode } from "@board/proto";
import type { Database } from "@board/service-kit";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { oauthClients, type OAuthClientRow } from "./clients.table.js";
import { hashOAuthSecret, newOAuthSecret, newRegisteredClientId } from "./opaque-secrets.js";
import { redirectUriProblem } from "./redirect-uris.js";

/** A registration asks for little: up to 10 redirect URIs, short names. Bounded so registration cannot fill the table with large rows. */
const MAX_REDIRECT_URIS = 10;

/**
 * The RFC 7591 metadata we read; other members (logo_uri, contacts, software_id...) are
 * accepted and not kept. Defaults are RFC 7591 2's: client_secret_basic, the code grant,
 * response type code.
 */
const ClientMetadata = z.object({
  redirect_uris: z.array(z.string().max(2048)).min(1).max(MAX_REDIRECT_URIS),
  token_endpoint_auth_method: z.enum(["none", "client_secret_basic", "client_secret_post"]).default("client_secret_basic"),
  grant_types: z
    .array(z.enum(["authorization_code", "refresh_token"]))
    .min(1)
    .default(["authorization_code"])
    .refine((g) => g.includes("authorization_code"), "grant_types must include authorization_code"),
  response_types: z.array(z.literal("code")).min(1).default(["code"]),
  client_name: z.string().min(1).max(100).optional(),
  client_uri: z.url({ protocol: /^https$/ }).max(2048).optional(),
  scope: z.string().max(500).optional(),
});

export type PresentedClient = { clientId: string; secret: string | undefined; basic: boolean };
export type ClientCheck = { ok: true; client: OAuthClientRow } | { ok: false; description: string };

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Registered OAuth clients (RFC 7591) and their authentication at the token endpoint. */
export class ClientRegistry {
  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's schema is wired by start.ts; this store names its table itself
    private readonly db: Database<any>,
    private readonly now: () => Date,
  ) {}

  async register(metadata: Record<string, unknown>): Promise<RegisterReply> {
    const uris = metadata["redirect_uris"];
    if (Array.isArray(uris)) {
      for (const uri of uris) {
        const problem = typeof uri === "string" ? redirectUriProblem(uri) : "every redirect URI must be a string";
        if (problem) return refuse("invalid_redirect_uri", problem);
      }
    }
    const read = ClientMetadata.safeParse(metadata);
    if (!read.success) {
      const issue = read.error.issues[0];
      const field = String(issue?.path[0] ?? "metadata");
      return refuse(field === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata", `${field}: ${issue?.message ?? "invalid"}`);
    }
    const m = read.data;
    if (m.scope !== undefined && m.scope.split(" ").some((s) => s !== "" && s !== ACCESS_TOKEN_SCOPE)) {
      return refuse("invalid_client_metadata", `scope: the only scope is ${ACCESS_TOKEN_SCOPE}`);
    }
    const now = this.now();
    const clientId = newRegisteredClientId();
    const secret = m.token_endpoint_auth_method === "none" ? undefined : newOAuthSecret("clientSecret");
    await this.db.insert(oauthClients).values({
      clientId,
      secretHash: secret ? hashOAuthSecret(secret) : null,
      authMethod: m.token_endpoint_auth_method,
      redirectUris: m.redirect_uris,
      grantTypes: [...new Set(m.grant_types)],
      clientName: m.client_name ?? null,
      clientUri: m.client_uri ?? null,
      createdAt: now,
    });
    const client: RegisteredClient = {
      client_id: clientId,
      client_id_issued_at: Math.floor(now.getTime() / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      redirect_uris: m.redirect_uris,
      token_endpoint_auth_method: m.token_endpoint_auth_method,
      grant_types: [...new Set(m.grant_types)],
      response_types: ["code"],
      scope: ACCESS_TOKEN_SCOPE,
      ...(m.client_name ? { client_name: m.client_name } : {}),
      ...(m.client_uri ? { client_uri: m.client_uri } : {}),
    };
    return { ok: true, client };
  }

  async find(clientId: string): Promise<OAuthClientRow | null> {
    const [row] = await this.db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
    return row ?? null;
  }

  /**
   * RFC 6749 2.3: a public client names itself (no secret); a confidential one proves its
   * secret (Basic or the form, whichever it sends). Unknown client and wrong secret read the same.
   */
  async authenticate(p: PresentedClient): Promise<ClientCheck> {
    const client = await this.find(p.clientId);
    if (!client) return { ok: false, description: "client authentication failed" };
    if (client.authMethod === "none") {
      return p.secret ? { ok: false, description: "client authentication failed" } : { ok: true, client };
    }
    if (!p.secret || !client.secretHash) return { ok: false, description: "client authentication failed" };
    const given = sha256(hashOAuthSecret(p.secret));
    return timingSafeEqual(given, sha256(client.secretHash)) ? { ok: true, client } : { ok: false, description: "client authentication failed" };
  }
}

const refuse = (error: RegistrationErrorCode, description: string): RegisterReply => ({ ok: false, error, error_description: description.slice(0, 300) });
