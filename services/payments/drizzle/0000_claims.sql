-- A no-op where the schema exists (made by the role provisioning, owned by the service's role):
-- CREATE SCHEMA IF NOT EXISTS would still need CREATE on the database.
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = 'payments') THEN CREATE SCHEMA "payments"; END IF; END $$;
--> statement-breakpoint
CREATE TYPE "payments"."claim_state" AS ENUM('claimed', 'settled', 'released', 'failed');--> statement-breakpoint
CREATE TABLE "payments"."claims" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"payment_key" text NOT NULL,
	"rail" text NOT NULL,
	"network" text NOT NULL,
	"route" text NOT NULL,
	"amount" text NOT NULL,
	"payer" text NOT NULL,
	"state" "payments"."claim_state" DEFAULT 'claimed' NOT NULL,
	"payment" jsonb NOT NULL,
	"transaction" text,
	"receipt" jsonb,
	"failure" text,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "claims_payment_key_unique" UNIQUE("payment_key")
);
--> statement-breakpoint
CREATE INDEX "claims_state_claimed_at" ON "payments"."claims" USING btree ("state","claimed_at");