-- A no-op where the schema exists (made by the role provisioning, owned by the service's role):
-- CREATE SCHEMA IF NOT EXISTS would still need CREATE on the database.
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_catalog.pg_namespace WHERE nspname = 'board') THEN CREATE SCHEMA "board"; END IF; END $$;
--> statement-breakpoint
CREATE TABLE "board"."snapshots" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "board"."snapshots_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"hash" text NOT NULL,
	"asof_daily" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"intraday" boolean NOT NULL,
	"stream_seq" bigint,
	"body" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "snapshots_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE INDEX "snapshots_asof_computed" ON "board"."snapshots" USING btree ("asof_daily","computed_at");