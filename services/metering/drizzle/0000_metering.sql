-- A no-op where the schema exists (made by the role provisioning, owned by the service's role):
-- CREATE SCHEMA IF NOT EXISTS would still need CREATE on the database.
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = 'metering') THEN CREATE SCHEMA "metering"; END IF; END $$;
--> statement-breakpoint
CREATE TABLE "metering"."consumer_position" (
	"consumer" text PRIMARY KEY NOT NULL,
	"stream_created" text NOT NULL,
	"last_seq" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "metering"."daily" (
	"principal" text NOT NULL,
	"day" date NOT NULL,
	"used" integer NOT NULL,
	CONSTRAINT "daily_principal_day_pk" PRIMARY KEY("principal","day")
);
--> statement-breakpoint
CREATE TABLE "metering"."reads_served" (
	"route" text PRIMARY KEY NOT NULL,
	"count" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "daily_day" ON "metering"."daily" USING btree ("day");