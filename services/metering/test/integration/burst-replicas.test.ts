import { DEFAULT_BURST, meteringConsume, type ConsumeReply, type MeterKind } from "@board/proto";
import { ensureBusStreams, request } from "@board/service-kit";
import { busEnv, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MeteringEnv } from "../../src/env.js";
import { startMetering, type MeteringService } from "../../src/start.js";

/**
 * Three metering replicas on one queue group, with the documented burst (DEFAULT_BURST, the
 * figures the terms and OpenAPI publish). Their clock is held still, so no token refills
 * during a flood: the tolerance is then exact. Steady membership: a principal gets its burst
 * and not one read more. A membership change (a replica dying or joining): a principal whose
 * bucket moved gets at most one fresh burst more, one whose bucket stayed gets nothing more.
 */
const infra = testInfra();
const HEARTBEAT_MS = 200;
const { principal: PRINCIPAL, anonymous: ANONYMOUS } = DEFAULT_BURST;
let db: TestDatabase;
let nc: NatsConnection;
let clock = new Date("2025-03-09T12:00:00Z");
const replicas: MeteringService[] = [];

async function startReplica(name: string): Promise<MeteringService> {
  const env = MeteringEnv.parse({ ...busEnv("metering"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "error", INSTANCE_ID: name, BURST_HEARTBEAT_MS: HEARTBEAT_MS });
  const replica = await startMetering(env, { now: () => clock });
  replicas.push(replica);
  return replica;
}

const live = () => replicas.filter((r) => !r.runtime.bus.nc.isClosed());
const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
};
/** Every live replica sees every live one (itself included). */
const settled = () => until(() => live().every((r) => r.owners.members.length === live().length));

/** `n` checks of one principal at once, through the queue group (as the gateway sends them); each answer's time too. */
async function flood(principal: string, n: number, kind: MeterKind = "licensed") {
  const timed = await Promise.all(
    Array.from({ length: n }, async () => {
      const t0 = performance.now();
      const reply: ConsumeReply = await request(nc, meteringConsume, { principal, kind }, { timeoutMs: 2000 });
      return { reply, ms: performance.now() - t0 };
    }),
  );
  return { granted: timed.filter((t) => t.reply.granted).length, slowestMs: Math.max(...timed.map((t) => t.ms)), replies: timed.map((t) => t.reply) };
}

const ownerOf = (key: string) => live()[0]!.owners.ownerOf(key);
/** Principals until each of the live replicas owns at least `each` of them. */
function principalsCovering(prefix: string, each = 2): string[] {
  const out: string[] = [];
  const owned = new Map<string, number>();
  for (let i = 0; live().some((r) => (owned.get(r.owners.self) ?? 0) < each); i++) {
    if (i > 1000) throw new Error("some replica owns no principal: the owners are not spread");
    const key = `${prefix}-${i}`;
    out.push(key);
    owned.set(ownerOf(key), (owned.get(ownerOf(key)) ?? 0) + 1);
  }
  return out;
}

beforeAll(async () => {
  db = await freshDatabase(infra.databaseUrl);
  nc = await connect(testBusOptions());
  // The deploy step: metering uses the served-reads stream, never makes it.
  await ensureBusStreams(nc);
  for (const name of ["metering-0", "metering-1", "metering-2"]) await startReplica(name);
  await settled();
}, 60_000);
afterAll(async () => {
  for (const r of replicas) await r.stop();
  await nc?.close();
  await db?.drop();
});

describe("the burst limit across three metering replicas", () => {
  it("every replica sees the same three members and picks the same owner for a principal", () => {
    const members = replicas[0]!.owners.members;
    expect(members).toHaveLength(3);
    for (const r of replicas) expect(r.owners.members).toEqual(members);
    for (let i = 0; i < 50; i++) expect(new Set(replicas.map((r) => r.owners.ownerOf(`license:agree-${i}`))).size).toBe(1);
  });

  it("a principal flooding through the queue group gets exactly its documented burst, whichever replica owns it", async () => {
    const before = replicas.map((r) => ({ ...r.burst.counts }));
    for (const principal of principalsCovering("license:steady")) {
      const { granted, replies } = await flood(principal, PRINCIPAL.capacity * 3);
      expect(granted, principal).toBe(PRINCIPAL.capacity);
      expect(replies.find((r) => !r.granted)).toMatchObject({ granted: false, reason: "burst_limited", retry_after_seconds: 1 });
    }
    // The checks really were spread: every replica answered some and sent some on.
    replicas.forEach((r, i) => {
      expect(r.burst.counts.local).toBeGreaterThan(before[i]!.local);
      expect(r.burst.counts.forwarded).toBeGreaterThan(before[i]!.forwarded);
      expect(r.burst.counts.fallback).toBe(0);
    });
  });

  it("a free key and a client address get their documented bursts too", async () => {
    expect((await flood("key:steady-free", PRINCIPAL.capacity * 3, "free")).granted).toBe(PRINCIPAL.capacity);
    expect((await flood("ip:203.0.113.7", ANONYMOUS.capacity * 3, "anonymous")).granted).toBe(ANONYMOUS.capacity);
  });

  it("the bucket refills at the documented rate, once, not once per replica", async () => {
    const principal = "license:refill";
    expect((await flood(principal, PRINCIPAL.capacity * 3)).granted).toBe(PRINCIPAL.capacity);
    clock = new Date(clock.getTime() + 1000);
    expect((await flood(principal, PRINCIPAL.capacity * 3)).granted).toBe(PRINCIPAL.per_second);
  });

  it("a replica that dies: reads are answered at once, and only the principals it owned get one fresh burst", async () => {
    const principals = principalsCovering("license:crash");
    for (const p of principals) expect((await flood(p, PRINCIPAL.capacity * 2)).granted).toBe(PRINCIPAL.capacity);
    const victim = replicas[1]!;
    const orphaned = principals.filter((p) => ownerOf(p) === victim.owners.self);
    // As a crash looks to the others: its connection goes, with no goodbye on the member
    // subject. (Drained, not closed: a request the server had already routed to a crashing
    // replica is lost, and its caller's timeout answers; the gateway passes such a read open.)
    await victim.runtime.bus.nc.drain();
    for (const p of principals) {
      const { granted, slowestMs } = await flood(p, PRINCIPAL.capacity * 2);
      // A dead owner costs a check at most two forward timeouts (100 ms each); waiting on it
      // would take the whole 2 s request timeout. The margin is for a loaded test machine.
      expect(slowestMs).toBeLessThan(1000);
      expect(granted, p).toBe(orphaned.includes(p) ? PRINCIPAL.capacity : 0);
    }
    for (const r of live()) expect(r.owners.members).not.toContain(victim.owners.self);
    // And then it holds again: nothing more for anyone.
    for (const p of principals) expect((await flood(p, PRINCIPAL.capacity)).granted).toBe(0);
  });

  it("a replica joining takes its share of principals, each with at most one fresh burst, and blocks no read", async () => {
    await settled();
    const principals = principalsCovering("license:join");
    for (const p of principals) expect((await flood(p, PRINCIPAL.capacity * 2)).granted).toBe(PRINCIPAL.capacity);
    const owners = new Map(principals.map((p) => [p, ownerOf(p)]));
    const joiner = await startReplica("metering-3");
    await settled();
    expect(joiner.owners.members).toHaveLength(3);
    for (const p of principals) {
      const moved = ownerOf(p) !== owners.get(p);
      if (moved) expect(ownerOf(p)).toBe(joiner.owners.self);
      const { granted, slowestMs } = await flood(p, PRINCIPAL.capacity * 2);
      expect(slowestMs).toBeLessThan(1000);
      expect(granted, p).toBe(moved ? PRINCIPAL.capacity : 0);
    }
  });

  it("a replica stopping cleanly leaves at once: the others stop routing to it before its heartbeats lapse", async () => {
    const leaver = replicas[replicas.length - 1]!;
    const self = leaver.owners.self;
    await leaver.stop();
    await until(() => live().every((r) => !r.owners.members.includes(self)), HEARTBEAT_MS);
    const { granted } = await flood("license:after-leave", PRINCIPAL.capacity * 2);
    expect(granted).toBe(PRINCIPAL.capacity);
    for (const r of live()) expect(r.burst.counts.fallback).toBe(0);
  });
});
