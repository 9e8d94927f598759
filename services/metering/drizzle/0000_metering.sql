CREATE SCHEMA "metering";
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