ALTER TABLE "identity"."licenses" ADD COLUMN "revoked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "identity"."licenses" ADD COLUMN "revoked_reason" text;