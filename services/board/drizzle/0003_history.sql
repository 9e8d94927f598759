CREATE TABLE "board"."change_bases" (
	"seq" integer PRIMARY KEY NOT NULL,
	"content_hash" text NOT NULL,
	"snapshot_hash" text NOT NULL,
	"asof_daily" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"basis" jsonb NOT NULL,
	CONSTRAINT "change_bases_content_hash_unique" UNIQUE("content_hash"),
	CONSTRAINT "change_bases_snapshot_hash_unique" UNIQUE("snapshot_hash")
);
--> statement-breakpoint
CREATE TABLE "board"."name_sessions" (
	"sym" text NOT NULL,
	"asof_daily" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"seq" integer NOT NULL,
	"record" jsonb NOT NULL,
	CONSTRAINT "name_sessions_sym_asof_daily_pk" PRIMARY KEY("sym","asof_daily")
);
--> statement-breakpoint
CREATE TABLE "board"."verdict_changes" (
	"seq" integer NOT NULL,
	"book" text NOT NULL,
	"asof_daily" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"from_verdict" text NOT NULL,
	"to_verdict" text NOT NULL,
	"figures" jsonb NOT NULL,
	CONSTRAINT "verdict_changes_seq_book_pk" PRIMARY KEY("seq","book")
);
--> statement-breakpoint
CREATE INDEX "change_bases_asof" ON "board"."change_bases" USING btree ("asof_daily");--> statement-breakpoint
CREATE INDEX "name_sessions_asof" ON "board"."name_sessions" USING btree ("asof_daily");--> statement-breakpoint
CREATE INDEX "verdict_changes_book_asof" ON "board"."verdict_changes" USING btree ("book","asof_daily");