CREATE SCHEMA IF NOT EXISTS "drizzle";
REVOKE ALL ON SCHEMA "drizzle" FROM PUBLIC;
DO $$ BEGIN EXECUTE format('REVOKE CREATE, TEMPORARY ON DATABASE %I FROM PUBLIC', current_database()); END $$;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'board') THEN
    CREATE ROLE "board" LOGIN;
  END IF;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
ALTER ROLE "board" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), 'board'); END $$;
CREATE SCHEMA IF NOT EXISTS "board" AUTHORIZATION "board";
ALTER SCHEMA "board" OWNER TO "board";
DO $$ DECLARE o record; BEGIN
  -- Sequences of identity and serial columns, and indexes, follow their table.
  FOR o IN SELECT c.oid::regclass::text AS obj, c.relkind FROM pg_catalog.pg_class c
    WHERE c.relnamespace = 'board'::regnamespace AND c.relowner <> 'board'::regrole AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
      AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::regclass
        AND d.objid = c.oid AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype IN ('a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO %I',
      CASE o.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
      o.obj, 'board');
  END LOOP;
  -- Enums, domains and composite types of their own; array types follow their element.
  FOR o IN SELECT t.oid::regtype::text AS obj FROM pg_catalog.pg_type t
    WHERE t.typnamespace = 'board'::regnamespace AND t.typowner <> 'board'::regrole AND t.typtype IN ('e', 'd', 'c', 'r', 'm')
      AND (t.typtype <> 'c' OR (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) = 'c')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO %I', o.obj, 'board');
  END LOOP;
  FOR o IN SELECT p.oid::regprocedure::text AS obj FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = 'board'::regnamespace AND p.proowner <> 'board'::regrole
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO %I', o.obj, 'board');
  END LOOP;
END $$;
GRANT USAGE ON SCHEMA "drizzle" TO "board";
CREATE TABLE IF NOT EXISTS "drizzle"."board_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint);
ALTER TABLE "drizzle"."board_migrations" OWNER TO "board";
ALTER ROLE "board" SET search_path = "board";
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'identity') THEN
    CREATE ROLE "identity" LOGIN;
  END IF;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
ALTER ROLE "identity" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), 'identity'); END $$;
CREATE SCHEMA IF NOT EXISTS "identity" AUTHORIZATION "identity";
ALTER SCHEMA "identity" OWNER TO "identity";
DO $$ DECLARE o record; BEGIN
  -- Sequences of identity and serial columns, and indexes, follow their table.
  FOR o IN SELECT c.oid::regclass::text AS obj, c.relkind FROM pg_catalog.pg_class c
    WHERE c.relnamespace = 'identity'::regnamespace AND c.relowner <> 'identity'::regrole AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
      AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::regclass
        AND d.objid = c.oid AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype IN ('a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO %I',
      CASE o.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
      o.obj, 'identity');
  END LOOP;
  -- Enums, domains and composite types of their own; array types follow their element.
  FOR o IN SELECT t.oid::regtype::text AS obj FROM pg_catalog.pg_type t
    WHERE t.typnamespace = 'identity'::regnamespace AND t.typowner <> 'identity'::regrole AND t.typtype IN ('e', 'd', 'c', 'r', 'm')
      AND (t.typtype <> 'c' OR (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) = 'c')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO %I', o.obj, 'identity');
  END LOOP;
  FOR o IN SELECT p.oid::regprocedure::text AS obj FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = 'identity'::regnamespace AND p.proowner <> 'identity'::regrole
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO %I', o.obj, 'identity');
  END LOOP;
END $$;
GRANT USAGE ON SCHEMA "drizzle" TO "identity";
CREATE TABLE IF NOT EXISTS "drizzle"."identity_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint);
ALTER TABLE "drizzle"."identity_migrations" OWNER TO "identity";
ALTER ROLE "identity" SET search_path = "identity";
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'metering') THEN
    CREATE ROLE "metering" LOGIN;
  END IF;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
ALTER ROLE "metering" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), 'metering'); END $$;
CREATE SCHEMA IF NOT EXISTS "metering" AUTHORIZATION "metering";
ALTER SCHEMA "metering" OWNER TO "metering";
DO $$ DECLARE o record; BEGIN
  -- Sequences of identity and serial columns, and indexes, follow their table.
  FOR o IN SELECT c.oid::regclass::text AS obj, c.relkind FROM pg_catalog.pg_class c
    WHERE c.relnamespace = 'metering'::regnamespace AND c.relowner <> 'metering'::regrole AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
      AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::regclass
        AND d.objid = c.oid AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype IN ('a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO %I',
      CASE o.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
      o.obj, 'metering');
  END LOOP;
  -- Enums, domains and composite types of their own; array types follow their element.
  FOR o IN SELECT t.oid::regtype::text AS obj FROM pg_catalog.pg_type t
    WHERE t.typnamespace = 'metering'::regnamespace AND t.typowner <> 'metering'::regrole AND t.typtype IN ('e', 'd', 'c', 'r', 'm')
      AND (t.typtype <> 'c' OR (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) = 'c')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO %I', o.obj, 'metering');
  END LOOP;
  FOR o IN SELECT p.oid::regprocedure::text AS obj FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = 'metering'::regnamespace AND p.proowner <> 'metering'::regrole
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO %I', o.obj, 'metering');
  END LOOP;
END $$;
GRANT USAGE ON SCHEMA "drizzle" TO "metering";
CREATE TABLE IF NOT EXISTS "drizzle"."metering_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint);
ALTER TABLE "drizzle"."metering_migrations" OWNER TO "metering";
ALTER ROLE "metering" SET search_path = "metering";
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = 'payments') THEN
    CREATE ROLE "payments" LOGIN;
  END IF;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
ALTER ROLE "payments" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), 'payments'); END $$;
CREATE SCHEMA IF NOT EXISTS "payments" AUTHORIZATION "payments";
ALTER SCHEMA "payments" OWNER TO "payments";
DO $$ DECLARE o record; BEGIN
  -- Sequences of identity and serial columns, and indexes, follow their table.
  FOR o IN SELECT c.oid::regclass::text AS obj, c.relkind FROM pg_catalog.pg_class c
    WHERE c.relnamespace = 'payments'::regnamespace AND c.relowner <> 'payments'::regrole AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
      AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::regclass
        AND d.objid = c.oid AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype IN ('a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO %I',
      CASE o.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
      o.obj, 'payments');
  END LOOP;
  -- Enums, domains and composite types of their own; array types follow their element.
  FOR o IN SELECT t.oid::regtype::text AS obj FROM pg_catalog.pg_type t
    WHERE t.typnamespace = 'payments'::regnamespace AND t.typowner <> 'payments'::regrole AND t.typtype IN ('e', 'd', 'c', 'r', 'm')
      AND (t.typtype <> 'c' OR (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) = 'c')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO %I', o.obj, 'payments');
  END LOOP;
  FOR o IN SELECT p.oid::regprocedure::text AS obj FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = 'payments'::regnamespace AND p.proowner <> 'payments'::regrole
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO %I', o.obj, 'payments');
  END LOOP;
END $$;
GRANT USAGE ON SCHEMA "drizzle" TO "payments";
CREATE TABLE IF NOT EXISTS "drizzle"."payments_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint);
ALTER TABLE "drizzle"."payments_migrations" OWNER TO "payments";
ALTER ROLE "payments" SET search_path = "payments";
