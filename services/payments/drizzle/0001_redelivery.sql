ALTER TABLE "payments"."claims" ADD COLUMN "delivery" jsonb;--> statement-breakpoint
ALTER TABLE "payments"."claims" ADD COLUMN "payment_id" text;--> statement-breakpoint
ALTER TABLE "payments"."claims" ADD COLUMN "redeliveries" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "claims_payer_payment_id" ON "payments"."claims" USING btree ("payer","payment_id");