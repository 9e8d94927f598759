CREATE TYPE "payments"."settlement_state" AS ENUM('final', 'pending', 'lost');--> statement-breakpoint
CREATE TABLE "payments"."losses" (
	"claim_id" uuid PRIMARY KEY NOT NULL,
	"network" text NOT NULL,
	"payer" text NOT NULL,
	"amount" numeric(38, 0) NOT NULL,
	"reason" text NOT NULL,
	"detected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"cleared_at" timestamp with time zone,
	"cleared_why" text
);
--> statement-breakpoint
CREATE TABLE "payments"."payer_exposure" (
	"network" text NOT NULL,
	"payer" text NOT NULL,
	"unsettled" numeric(38, 0) DEFAULT '0' NOT NULL,
	"owed" numeric(38, 0) DEFAULT '0' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payer_exposure_network_payer_pk" PRIMARY KEY("network","payer")
);
--> statement-breakpoint
ALTER TABLE "payments"."claims" ADD COLUMN "settlement" "payments"."settlement_state" DEFAULT 'final' NOT NULL;--> statement-breakpoint
ALTER TABLE "payments"."claims" ADD COLUMN "final_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "claims_settlement_pending" ON "payments"."claims" USING btree ("settled_at") WHERE settlement = 'pending';