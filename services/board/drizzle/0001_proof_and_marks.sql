CREATE TABLE "board"."commitments" (
	"seq" integer PRIMARY KEY NOT NULL,
	"snapshot_hash" text NOT NULL,
	"content_hash" text NOT NULL,
	"previous" text NOT NULL,
	"commitment" text NOT NULL,
	"asof_daily" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"intraday" boolean NOT NULL,
	"committed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "commitments_snapshot_hash_unique" UNIQUE("snapshot_hash"),
	CONSTRAINT "commitments_commitment_unique" UNIQUE("commitment")
);
--> statement-breakpoint
CREATE TABLE "board"."daily_marks" (
	"asof_daily" text PRIMARY KEY NOT NULL,
	"snapshot_hash" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"committed_at" timestamp with time zone NOT NULL,
	"marks" jsonb NOT NULL
);
