-- The proof chain is append-only: no commitment may be changed or removed once written.
CREATE OR REPLACE FUNCTION "board"."refuse_commitment_change"() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'board.commitments is append-only';
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER "commitments_append_only" BEFORE UPDATE OR DELETE ON "board"."commitments"
  FOR EACH ROW EXECUTE FUNCTION "board"."refuse_commitment_change"();
