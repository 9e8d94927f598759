import { jsonb, text, timestamp } from "drizzle-orm/pg-core";
import { identity } from "../db/identity-schema.js";

export const clientAuthMethod = identity.enum("oauth_client_auth_method", ["none", "client_secret_basic", "client_secret_post"]);

/**
 * Clients registered by RFC 7591 dynamic registration (MCP hosts and other applications that
 * send a licence holder to the consent page). A confidential client's secret is kept only as
 * its sha256; a public client (auth method none) has none and relies on PKCE.
 */
export const oauthClients = identity.table("oauth_clients", {
  clientId: text("client_id").primaryKey(),
  secretHash: text("secret_hash"),
  authMethod: clientAuthMethod("auth_method").notNull(),
  /** Exactly as registered; a loopback one matches any port at authorization (RFC 8252 7.3). */
  redirectUris: jsonb("redirect_uris").$type<string[]>().notNull(),
  grantTypes: jsonb("grant_types").$type<("authorization_code" | "refresh_token")[]>().notNull(),
  clientName: text("client_name"),
  clientUri: text("client_uri"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
});

export type OAuthClientRow = typeof oauthClients.$inferSelect;
