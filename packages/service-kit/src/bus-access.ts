import { spawnSync } from "node:child_process";
import { BUS_GRANTS, inboxPrefixOf, type BusPrincipal, type StreamUse } from "@board/proto";
import { nkeys } from "nats";

/** A user's permissions as nats-server reads them (server configuration, `authorization.users[].permissions`). */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** May publish to the reply subject of a request it received (its answers), and nothing else of that kind. */
  allow_responses: boolean;
}

/**
 * The JetStream API subjects a use of a stream needs (nats.js's manager, consumers and Direct
 * Get). Named verbs, never `$JS.API.STREAM.*.<stream>`: that wildcard includes UPDATE, with
 * which a service could widen its stream to other services' subjects and read them.
 */
function streamSubjects(use: StreamUse): string[] {
  const s = use.stream;
  const out = ["$JS.API.INFO"];
  if (use.manage) out.push(`$JS.API.STREAM.CREATE.${s}`, `$JS.API.STREAM.UPDATE.${s}`, `$JS.API.STREAM.INFO.${s}`);
  if (use.info) out.push(`$JS.API.STREAM.INFO.${s}`);
  if (use.consume) out.push(`$JS.API.CONSUMER.*.${s}`, `$JS.API.CONSUMER.*.${s}.>`, `$JS.API.CONSUMER.MSG.NEXT.${s}.>`, `$JS.ACK.${s}.>`, `$JS.FC.${s}.>`);
  if (use.get) out.push(`$JS.API.DIRECT.GET.${s}`, `$JS.API.DIRECT.GET.${s}.>`, `$JS.API.STREAM.MSG.GET.${s}`);
  return out;
}

/**
 * A principal's permissions, from its grant in proto (BUS_GRANTS): publish only to what it
 * calls and emits, subscribe only to what it serves (its endpoints, the NATS services API
 * under its name), the events it follows and its own inbox, plus the JetStream API of its
 * streams. Replies go back through `allow_responses`.
 */
export function permissionsOf(principal: BusPrincipal): NatsPermissions {
  const grant = BUS_GRANTS[principal];
  const publish = new Set<string>([...grant.calls.map((e) => e.subject), ...grant.publishes]);
  const subscribe = new Set<string>([`${inboxPrefixOf(principal)}.>`, ...grant.subscribes]);
  if (grant.serves) {
    subscribe.add(`${principal}.v1.>`);
    // The services API ($SRV): PING, INFO and STATS to all, to this name, and to this instance.
    for (const verb of ["PING", "INFO", "STATS"]) for (const s of [`$SRV.${verb}`, `$SRV.${verb}.${principal}`, `$SRV.${verb}.${principal}.*`]) subscribe.add(s);
  }
  for (const use of grant.streams) for (const s of streamSubjects(use)) publish.add(s);
  return { publish: { allow: [...publish].sort() }, subscribe: { allow: [...subscribe].sort() }, allow_responses: true };
}

/** One bus user: a principal's nkey (the public key, "U..."). */
export interface BusUser {
  principal: BusPrincipal;
  nkey: string;
}

/**
 * nats-server's `authorization` block for these users (nkey challenge-response: the server
 * holds public keys only). `admin`, when given, is a user allowed everything: the test suite's
 * own connections, never a deployment's.
 */
export function authorizationConfig(users: readonly BusUser[], admin?: string): { authorization: { users: object[] } } {
  const entries: object[] = users.map((u) => ({ nkey: u.nkey, permissions: permissionsOf(u.principal) }));
  if (admin) entries.push({ nkey: admin, permissions: { publish: { allow: [">"] }, subscribe: { allow: [">"] } } });
  return { authorization: { users: entries } };
}

/** The same as nats-server configuration text (its format reads JSON). */
export const renderAuthorization = (users: readonly BusUser[], admin?: string): string => `${JSON.stringify(authorizationConfig(users, admin), null, 2)}\n`;

/** A new user nkey: its seed (the secret, "SU...", what a connection presents) and its public key (what the server holds). */
export function createBusKey(): { seed: string; publicKey: string } {
  const kp = nkeys.createUser();
  return { seed: new TextDecoder().decode(kp.getSeed()), publicKey: kp.getPublicKey() };
}

/** The public key of a user seed; throws on anything that is not one. */
export const publicKeyOfSeed = (seed: string): string => nkeys.fromSeed(new TextEncoder().encode(seed)).getPublicKey();

/**
 * A whole nats-server configuration for one machine (the launcher's and the tests' private
 * server): JetStream with its store, and authorization for these users. Deployments keep
 * their own server configuration and include the same authorization block (deploy/).
 */
export function renderNatsServerConfig(opts: { host: string; port: number; storeDir: string; users: readonly BusUser[]; admin?: string }): string {
  return `${JSON.stringify(
    { listen: `${opts.host}:${opts.port}`, jetstream: { store_dir: opts.storeDir }, ...authorizationConfig(opts.users, opts.admin) },
    null,
    2,
  )}\n`;
}

/** The nats-server binary on PATH, or null: what `npm start` runs as its own bus, and the tests' first choice. */
export function natsServerOnPath(): string | null {
  const r = spawnSync("sh", ["-c", "command -v nats-server"], { encoding: "utf8" });
  const bin = r.stdout.trim();
  return r.status === 0 && bin ? bin : null;
}
