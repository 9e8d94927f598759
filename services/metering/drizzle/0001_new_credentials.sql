CREATE TABLE "metering"."new_credentials" (
	"kind" text NOT NULL,
	"client" text NOT NULL,
	"owner" text NOT NULL,
	"counted_at" timestamp with time zone NOT NULL,
	CONSTRAINT "new_credentials_kind_client_owner_pk" PRIMARY KEY("kind","client","owner")
);
--> statement-breakpoint
CREATE INDEX "new_credentials_counted_at" ON "metering"."new_credentials" USING btree ("counted_at");