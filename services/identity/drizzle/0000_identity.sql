-- A no-op where the schema exists (made by the role provisioning, owned by the service's role):
-- CREATE SCHEMA IF NOT EXISTS would still need CREATE on the database.
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = 'identity') THEN CREATE SCHEMA "identity"; END IF; END $$;
--> statement-breakpoint
CREATE TYPE "identity"."board_key_kind" AS ENUM('free_key', 'wallet');--> statement-breakpoint
CREATE TYPE "identity"."license_kind" AS ENUM('scanner', 'live_feed');--> statement-breakpoint
CREATE TYPE "identity"."license_period" AS ENUM('monthly', 'yearly');--> statement-breakpoint
CREATE TABLE "identity"."board_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" "identity"."board_key_kind" NOT NULL,
	"owner" text NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"retired_at" timestamp with time zone,
	CONSTRAINT "board_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "identity"."licenses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" "identity"."license_kind" NOT NULL,
	"client_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"holder" text NOT NULL,
	"period" "identity"."license_period" NOT NULL,
	"issued_at" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"cancelled_at" timestamp with time zone,
	CONSTRAINT "licenses_client_id_unique" UNIQUE("client_id"),
	CONSTRAINT "licenses_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "identity"."signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key_enc" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"signs_from" timestamp with time zone NOT NULL,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "board_keys_one_live_per_owner" ON "identity"."board_keys" USING btree ("kind","owner") WHERE retired_at is null;