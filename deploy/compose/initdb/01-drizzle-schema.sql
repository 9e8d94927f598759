-- Every service records its applied migrations in its own table of the shared "drizzle" schema.
-- Each service migrates under its own advisory lock, so two services starting at once on an
-- empty database could both run CREATE SCHEMA IF NOT EXISTS "drizzle" and one would fail;
-- creating it here, once, before any service starts, removes that race.
CREATE SCHEMA IF NOT EXISTS drizzle;
