import { meteringConsume, meteringConsumeMany, meteringRefund, type ConsumeReply } from "@board/proto";
import { BusError, ensureBusStreams, request } from "@board/service-kit";
import { busEnv, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MeteringEnv } from "../../src/env.js";
import { startMetering, type MeteringService } from "../../src/start.js";

const infra = testInfra();
let db: TestDatabase;
let sql: pg.Client;
let nc: NatsConnection;
let service: MeteringService | null = null;
/** The service's clock: tests move it, nothing else does. */
let clock = new Date("2025-03-09T12:00:00Z");

/** One metering replica at a time (two would share the queue group), with these burst settings. */
async function start(burst: Record<string, string>) {
  await service?.stop();
  const env = MeteringEnv.parse({ ...busEnv("metering"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn", ...burst });
  service = await startMetering(env, { now: () => clock });
}

const consume = (principal: string, kind: "free" | "licensed" | "anonymous" = "free") => request(nc, meteringConsume, { principal, kind });
const refund = (principal: string, day: string) => request(nc, meteringRefund, { principal, day });
const usedRow = async (principal: string, day: string) =>
  (await sql.query<{ used: number }>("select used from metering.daily where principal = $1 and day = $2", [principal, day])).rows[0]?.used;
const denied = (r: ConsumeReply) => (r.granted ? null : r);

beforeAll(async () => {
  db = await freshDatabase(infra.databaseUrl);
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  nc = await connect(testBusOptions());
  // The deploy step: metering uses the served-reads stream, never makes it.
  await ensureBusStreams(nc);
});
afterAll(async () => {
  await service?.stop();
  await nc?.close();
  await sql?.end();
  await db?.drop();
});

describe("daily cap of the free tier", () => {
  beforeAll(() => start({ BURST_CAPACITY: "1000", ANON_BURST_CAPACITY: "1000" }));

  it("of 100 concurrent reads with 25 left exactly 25 are counted; the rest get daily_cap_reached until 00:00 UTC", async () => {
    clock = new Date("2025-03-09T12:00:00Z");
    const replies = await Promise.all(Array.from({ length: 100 }, () => consume("key:concurrent")));
    const granted = replies.filter((r) => r.granted);
    expect(granted).toHaveLength(25);
    expect(granted.map((r) => r.daily?.used_today).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    const refused = replies.filter((r) => !r.granted);
    expect(refused).toHaveLength(75);
    for (const r of refused) {
      expect(r).toEqual({
        granted: false,
        reason: "daily_cap_reached",
        retry_after_seconds: 12 * 3600,
        daily: { day: "2025-03-09", used_today: 25, limit: 25, reset_at: "2025-03-10T00:00:00.000Z" },
      });
    }
    expect(await usedRow("key:concurrent", "2025-03-09")).toBe(25);
  });

  it("with some reads already used, concurrent reads are counted up to the cap and not one beyond", async () => {
    clock = new Date("2025-03-09T12:00:00Z");
    for (let i = 0; i < 24; i++) expect((await consume("key:one-left")).granted).toBe(true);
    const replies = await Promise.all(Array.from({ length: 40 }, () => consume("key:one-left")));
    expect(replies.filter((r) => r.granted)).toHaveLength(1);
    expect(await usedRow("key:one-left", "2025-03-09")).toBe(25);
  });

  it("a refund gives one counted read back, and only a counted one", async () => {
    clock = new Date("2025-03-09T12:00:00Z");
    expect(await refund("key:concurrent", "2025-03-09")).toEqual({ refunded: true });
    expect(await usedRow("key:concurrent", "2025-03-09")).toBe(24);
    const again = await consume("key:concurrent");
    expect(again).toMatchObject({ granted: true, daily: { used_today: 25 } });
    expect(denied(await consume("key:concurrent"))?.reason).toBe("daily_cap_reached");

    expect(await refund("key:never-read", "2025-03-09")).toEqual({ refunded: false });
    expect(await refund("key:concurrent", "2025-03-08")).toEqual({ refunded: false });
    await consume("key:refund-once");
    expect(await refund("key:refund-once", "2025-03-09")).toEqual({ refunded: true });
    expect(await refund("key:refund-once", "2025-03-09")).toEqual({ refunded: false }); // never below zero
    expect(await usedRow("key:refund-once", "2025-03-09")).toBe(0);
  });

  it("a refund for a day that does not exist is an invalid request", async () => {
    await expect(refund("key:concurrent", "2025-02-30")).rejects.toMatchObject({ code: "invalid_request", status: 400 });
    await expect(refund("key:concurrent", "2025-02-30")).rejects.toBeInstanceOf(BusError);
  });

  it("the day ends at 00:00 UTC: 23:59:59 counts on its day with Retry-After 1, 00:00:00 starts the next day's count", async () => {
    clock = new Date("2025-06-30T23:59:59Z");
    for (let i = 1; i <= 25; i++) {
      expect(await consume("wallet:eip155:1:0xabc")).toEqual({
        granted: true,
        daily: { day: "2025-06-30", used_today: i, limit: 25, reset_at: "2025-07-01T00:00:00.000Z" },
      });
    }
    expect(await consume("wallet:eip155:1:0xabc")).toEqual({
      granted: false,
      reason: "daily_cap_reached",
      retry_after_seconds: 1,
      daily: { day: "2025-06-30", used_today: 25, limit: 25, reset_at: "2025-07-01T00:00:00.000Z" },
    });
    clock = new Date("2025-06-30T23:59:59.400Z");
    expect(denied(await consume("wallet:eip155:1:0xabc"))?.retry_after_seconds).toBe(1);

    clock = new Date("2025-07-01T00:00:00Z");
    expect(await consume("wallet:eip155:1:0xabc")).toEqual({
      granted: true,
      daily: { day: "2025-07-01", used_today: 1, limit: 25, reset_at: "2025-07-02T00:00:00.000Z" },
    });
    // The gateway refunds on the day the read was counted, even after midnight.
    expect(await refund("wallet:eip155:1:0xabc", "2025-06-30")).toEqual({ refunded: true });
    expect(await usedRow("wallet:eip155:1:0xabc", "2025-06-30")).toBe(24);
    expect(await usedRow("wallet:eip155:1:0xabc", "2025-07-01")).toBe(1);
  });

  it("licensed and anonymous reads have no daily count", async () => {
    clock = new Date("2025-03-09T12:00:00Z");
    for (let i = 0; i < 30; i++) expect(await consume("license:abc", "licensed")).toEqual({ granted: true, daily: null });
    for (let i = 0; i < 30; i++) expect(await consume("ip:203.0.113.7", "anonymous")).toEqual({ granted: true, daily: null });
    const rows = await sql.query("select 1 from metering.daily where principal in ('license:abc', 'ip:203.0.113.7')");
    expect(rows.rowCount).toBe(0);
  });

  it("an anonymous read must name its client address", async () => {
    await expect(consume("key:abc", "anonymous")).rejects.toMatchObject({ code: "invalid_request", status: 400 });
  });
});

describe("burst limit", () => {
  beforeAll(() => start({ BURST_CAPACITY: "5", BURST_PER_SECOND: "0.5", ANON_BURST_CAPACITY: "8", ANON_BURST_PER_SECOND: "2" }));

  it("a principal gets `capacity` reads at once; the next is burst_limited until a token is back", async () => {
    clock = new Date("2025-03-10T08:00:00Z");
    for (let i = 0; i < 5; i++) expect((await consume("license:burst", "licensed")).granted).toBe(true);
    expect(await consume("license:burst", "licensed")).toEqual({ granted: false, reason: "burst_limited", retry_after_seconds: 2, daily: null });
    clock = new Date("2025-03-10T08:00:01Z");
    expect(denied(await consume("license:burst", "licensed"))).toMatchObject({ reason: "burst_limited", retry_after_seconds: 1 });
    clock = new Date("2025-03-10T08:00:02Z");
    expect(await consume("license:burst", "licensed")).toEqual({ granted: true, daily: null });
    expect((await consume("license:burst", "licensed")).granted).toBe(false);
  });

  it("anonymous reads are limited per client address with their own thresholds", async () => {
    clock = new Date("2025-03-10T09:00:00Z");
    const replies = await Promise.all(Array.from({ length: 20 }, () => consume("ip:198.51.100.1", "anonymous")));
    expect(replies.filter((r) => r.granted)).toHaveLength(8);
    for (const r of replies.filter((r) => !r.granted)) expect(r).toEqual({ granted: false, reason: "burst_limited", retry_after_seconds: 1, daily: null });
    // Another address, and a principal of the same name, have buckets of their own.
    expect((await consume("ip:198.51.100.2", "anonymous")).granted).toBe(true);
    expect((await consume("ip:198.51.100.1", "licensed")).granted).toBe(true);
    clock = new Date("2025-03-10T09:00:00.500Z");
    expect((await consume("ip:198.51.100.1", "anonymous")).granted).toBe(true);
    expect((await consume("ip:198.51.100.1", "anonymous")).granted).toBe(false);
  });

  it("a burst-limited free read consumes no daily read", async () => {
    clock = new Date("2025-03-10T10:00:00Z");
    for (let i = 1; i <= 5; i++) expect(await consume("key:bursty")).toMatchObject({ granted: true, daily: { used_today: i } });
    for (let i = 0; i < 10; i++) expect(denied(await consume("key:bursty"))?.reason).toBe("burst_limited");
    expect(await usedRow("key:bursty", "2025-03-10")).toBe(5);
    clock = new Date("2025-03-10T10:00:02Z");
    expect(await consume("key:bursty")).toMatchObject({ granted: true, daily: { used_today: 6 } });
    expect(await usedRow("key:bursty", "2025-03-10")).toBe(6);
  });

  it("consume_many answers burst checks sent together in order, each as consume would, the bucket exact across them; free reads are counted in the same message", async () => {
    clock = new Date("2025-03-10T11:00:00Z");
    const requests = [
      ...Array.from({ length: 12 }, () => ({ principal: "ip:198.51.100.9", kind: "anonymous" as const })),
      { principal: "not-an-address", kind: "anonymous" as const },
      ...Array.from({ length: 7 }, () => ({ principal: "license:many", kind: "licensed" as const })),
    ];
    const { replies } = await request(nc, meteringConsumeMany, { requests });
    expect(replies).toHaveLength(requests.length);
    // The anonymous bucket holds 8: the first 8 in order, then refusals.
    expect(replies.slice(0, 12).map((r) => "granted" in r && r.granted)).toEqual([...Array(8).fill(true), ...Array(4).fill(false)]);
    expect(replies[8]).toEqual({ granted: false, reason: "burst_limited", retry_after_seconds: 1, daily: null });
    // What consume refuses as a bus error comes back as that error, in its place.
    expect(replies[12]).toEqual({ failed: { code: "invalid_request", status: 400 } });
    // The licence's bucket holds 5, shared with single consumes.
    expect(replies.slice(13).map((r) => "granted" in r && r.granted)).toEqual([...Array(5).fill(true), false, false]);
    expect((await consume("license:many", "licensed")).granted).toBe(false);
    // Free reads travel with them, each counted against its day as consume counts it.
    const free = await request(nc, meteringConsumeMany, { requests: [{ principal: "key:many", kind: "free" }, { principal: "license:many", kind: "licensed" }, { principal: "key:many", kind: "free" }] });
    expect(free.replies).toEqual([
      { granted: true, daily: { day: "2025-03-10", used_today: 1, limit: 25, reset_at: "2025-03-11T00:00:00.000Z" } },
      { granted: false, reason: "burst_limited", retry_after_seconds: expect.any(Number) as number, daily: null },
      { granted: true, daily: { day: "2025-03-10", used_today: 2, limit: 25, reset_at: "2025-03-11T00:00:00.000Z" } },
    ]);
    // A kind the endpoint does not know is refused by its schema, as consume refuses it.
    const raw = await nc.request(meteringConsumeMany.subject, new TextEncoder().encode(JSON.stringify({ requests: [{ principal: "key:x", kind: "paid" }] })));
    expect(raw.headers?.get("Nats-Service-Error-Code")).toBe("400");
  });
});
