CREATE TABLE "payments"."receipt_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"private_key_enc" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"signs_from" timestamp with time zone NOT NULL,
	"retired_at" timestamp with time zone
);
