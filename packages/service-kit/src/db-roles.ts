import pg from "pg";
import { MIGRATION_JOURNAL_COLUMNS, migrationJournal, schemaName } from "./db.js";

/**
 * One Postgres role per service that owns data: the role is named after the service's schema
 * (schemaName), logs in with its own password, owns that schema and its migration journal
 * (drizzle.<schema>_migrations), may only look up names in the shared "drizzle" schema, and
 * has no CREATE on the database nor any right on another service's schema. Its migrations run
 * as itself (openDatabase): a leaked DATABASE_URL reaches one service's data, not all of it.
 *
 * The SQL below is the one source of that set-up: provisionServiceRoles runs it, and
 * serviceRolesSql / serviceRolesInitScript render it for init scripts (compose, Kubernetes).
 */

/** The services whose data lives in Postgres, each in its own schema and role. */
export const DATABASE_SERVICES = ["board", "identity", "metering", "payments"] as const;

/**
 * Where a role's password comes from in rendered SQL: the text itself (a string literal),
 * a psql variable (`:'name'`, set with `psql -v name=...`, so the script holds no secret),
 * or none (the role is created without one: another system, e.g. CloudNativePG's managed
 * roles, sets it).
 */
export type RolePassword = string | { readonly psqlVariable: string } | null;

export interface ServiceRole {
  /** The service name; its role and schema are schemaName(service). */
  readonly service: string;
  readonly password: RolePassword;
}

/** Postgres identifiers are at most 63 bytes; the journal table adds "_migrations". */
const SERVICE_NAME = /^[a-z][a-z0-9_-]{0,50}$/;
const PSQL_VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const ident = (name: string) => pg.escapeIdentifier(name);
const literal = (text: string) => pg.escapeLiteral(text);

/** The role (and schema) of a service, refusing a name that could not be a plain identifier. */
export function serviceRoleName(service: string): string {
  if (!SERVICE_NAME.test(service)) throw new Error(`invalid_service_name: ${JSON.stringify(service)}`);
  return schemaName(service);
}

/** The statements that create or update one role; database-wide ones come from databaseStatements. */
function roleStatements(role: ServiceRole): string[] {
  const name = serviceRoleName(role.service);
  const journal = migrationJournal(role.service);
  const r = ident(name);
  const out = [
    // No CREATE ROLE IF NOT EXISTS in Postgres; duplicate_object covers another provisioner
    // creating it between the check and the CREATE (roles are cluster-wide, not per database).
    `DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = ${literal(name)}) THEN
    CREATE ROLE ${r} LOGIN;
  END IF;
EXCEPTION WHEN duplicate_object THEN NULL;
END $$`,
    // Also on an existing role: whatever it was granted before, it is now a plain login.
    `ALTER ROLE ${r} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS`,
  ];
  if (role.password !== null) {
    const value = typeof role.password === "string" ? literal(role.password) : psqlVariable(role.password.psqlVariable);
    out.push(`ALTER ROLE ${r} WITH PASSWORD ${value}`);
  }
  out.push(
    `DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), ${literal(name)}); END $$`,
    `CREATE SCHEMA IF NOT EXISTS ${r} AUTHORIZATION ${r}`,
    `ALTER SCHEMA ${r} OWNER TO ${r}`,
    // A database that one role migrated before: what is already in the schema changes hands too.
    adoptSchemaObjects(name),
    `GRANT USAGE ON SCHEMA ${ident(journal.schema)} TO ${r}`,
    // Pre-created because the role may not create in "drizzle"; the same table drizzle makes.
    `CREATE TABLE IF NOT EXISTS ${ident(journal.schema)}.${ident(journal.table)} (${MIGRATION_JOURNAL_COLUMNS})`,
    `ALTER TABLE ${ident(journal.schema)}.${ident(journal.table)} OWNER TO ${r}`,
    // Unqualified names then resolve in its own schema only.
    `ALTER ROLE ${r} SET search_path = ${r}`,
  );
  return out;
}

function psqlVariable(name: string): string {
  if (!PSQL_VARIABLE.test(name)) throw new Error(`invalid_psql_variable: ${JSON.stringify(name)}`);
  return `:'${name}'`;
}

/** Gives the role every table, view, sequence, type and routine in its schema that another role owns. */
function adoptSchemaObjects(name: string): string {
  const ns = `${literal(name)}::regnamespace`;
  const owner = `${literal(name)}::regrole`;
  return `DO $$ DECLARE o record; BEGIN
  -- Sequences of identity and serial columns, and indexes, follow their table.
  FOR o IN SELECT c.oid::regclass::text AS obj, c.relkind FROM pg_catalog.pg_class c
    WHERE c.relnamespace = ${ns} AND c.relowner <> ${owner} AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
      AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::regclass
        AND d.objid = c.oid AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype IN ('a', 'i'))
  LOOP
    EXECUTE format('ALTER %s %s OWNER TO %I',
      CASE o.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
      o.obj, ${literal(name)});
  END LOOP;
  -- Enums, domains and composite types of their own; array types follow their element.
  FOR o IN SELECT t.oid::regtype::text AS obj FROM pg_catalog.pg_type t
    WHERE t.typnamespace = ${ns} AND t.typowner <> ${owner} AND t.typtype IN ('e', 'd', 'c', 'r', 'm')
      AND (t.typtype <> 'c' OR (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid) = 'c')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO %I', o.obj, ${literal(name)});
  END LOOP;
  FOR o IN SELECT p.oid::regprocedure::text AS obj FROM pg_catalog.pg_proc p
    WHERE p.pronamespace = ${ns} AND p.proowner <> ${owner}
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO %I', o.obj, ${literal(name)});
  END LOOP;
END $$`;
}

/** What every role shares: the journal schema, and no PUBLIC right to create in the database. */
function databaseStatements(): string[] {
  const { schema } = migrationJournal("x");
  return [
    `CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`,
    // The roles get USAGE only; PUBLIC gets nothing from this schema.
    `REVOKE ALL ON SCHEMA ${ident(schema)} FROM PUBLIC`,
    // PUBLIC has TEMPORARY by default (and CREATE where someone granted it); Postgres before 15
    // also lets PUBLIC create in schema public.
    `DO $$ BEGIN EXECUTE format('REVOKE CREATE, TEMPORARY ON DATABASE %I FROM PUBLIC', current_database()); END $$`,
    `REVOKE CREATE ON SCHEMA public FROM PUBLIC`,
  ];
}

/**
 * The provisioning of these roles as SQL statements, to run in order, in one transaction, as a
 * superuser connected to the services' database. Idempotent: running it again only resets the
 * passwords given and the privileges.
 */
export function serviceRolesStatements(roles: readonly ServiceRole[]): string[] {
  const seen = new Set<string>();
  for (const r of roles) {
    const name = serviceRoleName(r.service);
    if (seen.has(name)) throw new Error(`duplicate_service_role: ${name}`);
    seen.add(name);
  }
  return [...databaseStatements(), ...roles.flatMap(roleStatements)];
}

/** serviceRolesStatements as one SQL text for psql (with ON_ERROR_STOP and --single-transaction). */
export function serviceRolesSql(roles: readonly ServiceRole[]): string {
  return serviceRolesStatements(roles).map((s) => `${s};\n`).join("");
}

/** The psql variable and environment variable names an init script reads a service's password from. */
export const rolePasswordVariable = (service: string) => `password_${serviceRoleName(service)}`;
export const rolePasswordEnv = (service: string) => `POSTGRES_PASSWORD_${serviceRoleName(service).toUpperCase()}`;

/**
 * A /docker-entrypoint-initdb.d script (the official postgres image runs it once, as the
 * superuser, on an empty data directory) that provisions these services' roles with the
 * passwords in POSTGRES_PASSWORD_<SERVICE> (rolePasswordEnv), passed to psql as variables so
 * the script holds no secret. Committed copies are checked against this (test/deploy).
 */
export function serviceRolesInitScript(services: readonly string[] = DATABASE_SERVICES): string {
  const roles = services.map((service) => ({ service, password: { psqlVariable: rolePasswordVariable(service) } }));
  const vars = services.map((s) => `  -v ${rolePasswordVariable(s)}="\${${rolePasswordEnv(s)}:?${rolePasswordEnv(s)} is required}" \\\n`).join("");
  return `#!/bin/sh
# Generated by serviceRolesInitScript() (packages/service-kit/src/db-roles.ts): change it there.
# One role per service, owning only its schema; passwords from the environment.
set -eu
psql --no-psqlrc --set=ON_ERROR_STOP=1 --single-transaction --quiet \\
  --username="$POSTGRES_USER" --dbname="$POSTGRES_DB" \\
${vars}  <<'SQL'
${serviceRolesSql(roles)}SQL
`;
}

/**
 * Creates or updates each service's role, its schema and its journal table, in one
 * transaction on `adminUrl` (a superuser, or a role with CREATEROLE that owns the database,
 * connected to the services' database). Idempotent; safe to run at every start. Passwords are
 * sent as SQL literals on this connection only and never logged.
 */
export async function provisionServiceRoles(adminUrl: string, roles: readonly { service: string; password: string }[]): Promise<void> {
  const statements = serviceRolesStatements(roles);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query("begin");
    try {
      for (const s of statements) await client.query(s);
      await client.query("commit");
    } catch (err) {
      await client.query("rollback").catch(() => undefined);
      // The failing statement may hold a password: report only Postgres's code and message.
      const e = err as { code?: string; message?: string };
      throw new Error(`provision_service_roles_failed: ${e.code ?? "unknown"} ${e.message ?? ""}`.trim());
    }
  } finally {
    await client.end();
  }
}
