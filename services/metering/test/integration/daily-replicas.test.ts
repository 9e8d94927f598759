import { meteringConsume, meteringConsumeMany, type ConsumeOutcome } from "@board/proto";
import { ensureBusStreams, request } from "@board/service-kit";
import { busEnv, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MeteringEnv } from "../../src/env.js";
import { startMetering, type MeteringService } from "../../src/start.js";

/**
 * The free tier's daily cap counted by three replicas at once, as gateways send the reads:
 * one consume each and consume_many messages carrying a turn's reads of many keys. Each
 * replica counts what one turn brings it in one statement; the cap must stay exact.
 */
const infra = testInfra();
let db: TestDatabase;
let sql: pg.Client;
let nc: NatsConnection;
const clock = new Date("2025-03-09T12:00:00Z");
const replicas: MeteringService[] = [];

beforeAll(async () => {
  db = await freshDatabase(infra.databaseUrl);
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  nc = await connect(testBusOptions());
  await ensureBusStreams(nc);
  for (const name of ["metering-0", "metering-1", "metering-2"]) {
    const env = MeteringEnv.parse({ ...busEnv("metering"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "error", INSTANCE_ID: name, BURST_CAPACITY: "100000", BURST_PER_SECOND: "100000" });
    replicas.push(await startMetering(env, { now: () => clock }));
  }
}, 60_000);
afterAll(async () => {
  for (const r of replicas) await r.stop();
  await nc?.close();
  await sql?.end();
  await db?.drop();
});

const usedRow = async (principal: string) =>
  (await sql.query<{ used: number }>("select used from metering.daily where principal = $1 and day = '2025-03-09'", [principal])).rows[0]?.used ?? 0;
const grantedUsed = (o: ConsumeOutcome) => ("granted" in o && o.granted ? (o.daily?.used_today ?? null) : null);

describe("the daily cap across three metering replicas", () => {
  it("of 130 concurrent free reads of one key, singles and consume_many messages mixed, exactly 25 are counted, each with its own count", async () => {
    const key = "key:replicas";
    const singles = Array.from({ length: 40 }, () => request(nc, meteringConsume, { principal: key, kind: "free" }, { timeoutMs: 5000 }));
    // Ten gateways' turns: each carries 9 reads of the key among reads of keys of their own.
    const many = Array.from({ length: 10 }, (_, g) =>
      request(
        nc,
        meteringConsumeMany,
        { requests: Array.from({ length: 12 }, (_, i) => ({ principal: i % 4 === 3 ? `key:own-${g}` : key, kind: "free" as const })) },
        { timeoutMs: 5000 },
      ),
    );
    const single = await Promise.all(singles);
    const batched = (await Promise.all(many)).flatMap((m, g) => m.replies.map((o, i) => ({ o, own: i % 4 === 3, g })));
    const counts = [...single.map((r) => (r.granted ? (r.daily?.used_today ?? null) : null)), ...batched.filter((b) => !b.own).map((b) => grantedUsed(b.o))].filter((u) => u !== null);
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(await usedRow(key)).toBe(25);
    // The other keys in the same messages: 3 reads each, all counted, in order.
    for (let g = 0; g < 10; g++) expect(batched.filter((b) => b.own && b.g === g).map((b) => grantedUsed(b.o))).toEqual([1, 2, 3]);
    const refused = single.find((r) => !r.granted);
    expect(refused).toMatchObject({ granted: false, reason: "daily_cap_reached", daily: { used_today: 25, limit: 25 } });
  });

  it("a key with 2 left, asked 6 times in one message: the first 2 in order are counted, the rest refused", async () => {
    const key = "key:two-left";
    for (let i = 0; i < 23; i++) expect((await request(nc, meteringConsume, { principal: key, kind: "free" })).granted).toBe(true);
    const { replies } = await request(nc, meteringConsumeMany, { requests: Array.from({ length: 6 }, () => ({ principal: key, kind: "free" as const })) });
    expect(replies.map(grantedUsed)).toEqual([24, 25, null, null, null, null]);
    expect(replies[2]).toMatchObject({ granted: false, reason: "daily_cap_reached" });
    expect(await usedRow(key)).toBe(25);
  });
});
