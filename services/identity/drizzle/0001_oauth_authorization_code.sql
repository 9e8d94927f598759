CREATE TYPE "identity"."oauth_client_auth_method" AS ENUM('none', 'client_secret_basic', 'client_secret_post');--> statement-breakpoint
CREATE TABLE "identity"."oauth_authorization_codes" (
	"code_hash" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"license_id" uuid NOT NULL,
	"redirect_uri" text NOT NULL,
	"code_challenge" text NOT NULL,
	"resources" jsonb NOT NULL,
	"scope" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"family_id" uuid
);
--> statement-breakpoint
CREATE TABLE "identity"."oauth_clients" (
	"client_id" text PRIMARY KEY NOT NULL,
	"secret_hash" text,
	"auth_method" "identity"."oauth_client_auth_method" NOT NULL,
	"redirect_uris" jsonb NOT NULL,
	"grant_types" jsonb NOT NULL,
	"client_name" text,
	"client_uri" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "identity"."oauth_refresh_families" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"client_id" text NOT NULL,
	"license_id" uuid NOT NULL,
	"resources" jsonb NOT NULL,
	"scope" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "identity"."oauth_refresh_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"family_id" uuid NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "identity"."oauth_authorization_codes" ADD CONSTRAINT "oauth_authorization_codes_client_id_oauth_clients_client_id_fk" FOREIGN KEY ("client_id") REFERENCES "identity"."oauth_clients"("client_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."oauth_authorization_codes" ADD CONSTRAINT "oauth_authorization_codes_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "identity"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."oauth_authorization_codes" ADD CONSTRAINT "oauth_authorization_codes_family_id_oauth_refresh_families_id_fk" FOREIGN KEY ("family_id") REFERENCES "identity"."oauth_refresh_families"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."oauth_refresh_families" ADD CONSTRAINT "oauth_refresh_families_client_id_oauth_clients_client_id_fk" FOREIGN KEY ("client_id") REFERENCES "identity"."oauth_clients"("client_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."oauth_refresh_families" ADD CONSTRAINT "oauth_refresh_families_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "identity"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "identity"."oauth_refresh_tokens" ADD CONSTRAINT "oauth_refresh_tokens_family_id_oauth_refresh_families_id_fk" FOREIGN KEY ("family_id") REFERENCES "identity"."oauth_refresh_families"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "oauth_authorization_codes_expires_at" ON "identity"."oauth_authorization_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "oauth_refresh_tokens_family" ON "identity"."oauth_refresh_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "oauth_refresh_tokens_expires_at" ON "identity"."oauth_refresh_tokens" USING btree ("expires_at");