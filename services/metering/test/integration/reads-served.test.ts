import { meteringReadsServed, READS_SERVED_EVENT_SUBJECT, ReadsServedReply, SERVED_READ_SUBJECT, SERVED_READS_STREAM, type ServedRead } from "@board/proto";
import { request } from "@board/service-kit";
import { busEnv, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type JetStreamClient, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MeteringEnv } from "../../src/env.js";
import { ensureBusStreams } from "@board/service-kit";
import { startMetering, type MeteringService } from "../../src/start.js";

const infra = testInfra();
const encoder = new TextEncoder();
let db: TestDatabase;
let nc: NatsConnection;
let js: JetStreamClient;
const running: MeteringService[] = [];
const events: ReadsServedReply[] = [];

const ROUTES = ["/api/board/regime", "/api/board/indices", "/api/board/movers"] as const;
/** What the counts must come to: every valid event published so far, per route. */
const expected: Record<string, number> = {};

const startOne = async () => {
  const env = MeteringEnv.parse({ ...busEnv("metering"), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "error", READS_BATCH_WAIT_MS: "50" });
  const s = await startMetering(env, { streamCheckMs: 200 });
  running.push(s);
  return s;
};
const stopAll = async () => {
  for (const s of running.splice(0)) await s.stop();
};

/** Publishes `n` served reads spread over the routes, one event each (the form without a count). */
async function publishReads(n: number, offset = 0) {
  const acks = [];
  for (let i = 0; i < n; i++) {
    const route = ROUTES[(i + offset) % ROUTES.length]!;
    const event: Omit<ServedRead, "count"> = { route, tier: "free_key", at: new Date().toISOString() };
    expected[route] = (expected[route] ?? 0) + 1;
    acks.push(js.publish(SERVED_READ_SUBJECT, encoder.encode(JSON.stringify(event))));
  }
  await Promise.all(acks);
}

const totals = async () => (await request(nc, meteringReadsServed, {})).reads_served;
const streamLastSeq = async () => (await (await nc.jetstreamManager()).streams.info(SERVED_READS_STREAM)).state.last_seq;

async function until(check: () => Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The counts reach the expected totals, and stay there (nothing counted twice a moment later). */
async function countsSettle(s: MeteringService) {
  await until(async () => (await s.ledger.position()) === (await streamLastSeq()));
  expect(await totals()).toEqual(expected);
  await new Promise((r) => setTimeout(r, 300));
  expect(await totals()).toEqual(expected);
}

beforeAll(async () => {
  db = await freshDatabase(infra.databaseUrl);
  nc = await connect(testBusOptions());
  js = nc.jetstream();
  // Each test file starts from an empty stream (a stream left by an earlier run would be counted too).
  const jsm = await nc.jetstreamManager();
  await jsm.streams.delete(SERVED_READS_STREAM).catch(() => undefined);
  // The deploy step: metering uses the stream, never makes it.
  await ensureBusStreams(nc);
  nc.subscribe(READS_SERVED_EVENT_SUBJECT, { callback: (_err, msg) => events.push(ReadsServedReply.parse(msg.json())) });
});
afterAll(async () => {
  await stopAll();
  await nc?.close();
  await db?.drop();
});

describe("reads served per route", () => {
  it("reads the stream the deploy step made for the gateway to publish to, and answers zero counts at first", async () => {
    await startOne();
    const info = await (await nc.jetstreamManager()).streams.info(SERVED_READS_STREAM);
    expect(info.config.subjects).toEqual([SERVED_READ_SUBJECT]);
    expect(info.config.storage).toBe("file");
    expect(info.config.retention).toBe("limits");
    expect(await totals()).toEqual({});
    // The deploy step run again: the same configuration, no error.
    await ensureBusStreams(nc);
  });

  it("1000 served reads are counted exactly, in batches, and announced with their totals", async () => {
    const s = running[0]!;
    await publishReads(1000);
    await countsSettle(s);
    const last = events.at(-1);
    expect(last?.reads_served).toEqual(expected);
    // Batched: far fewer commits (and events) than reads.
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThan(100);
  });

  it("an event counting a window of reads adds its count (what the gateway publishes)", async () => {
    const s = running[0]!;
    const counts = [1, 7, 250];
    for (const [i, count] of counts.entries()) {
      const route = ROUTES[i % ROUTES.length]!;
      const event: ServedRead = { route, tier: "x402", at: new Date().toISOString(), count };
      expected[route] = (expected[route] ?? 0) + count;
      await js.publish(SERVED_READ_SUBJECT, encoder.encode(JSON.stringify(event)));
    }
    // A count out of its contract is skipped like any invalid event.
    await js.publish(SERVED_READ_SUBJECT, encoder.encode(JSON.stringify({ route: ROUTES[0], tier: "x402", at: new Date().toISOString(), count: 0 })));
    await countsSettle(s);
    expect(await totals()).toEqual(expected);
  });

  it("events that fail their contract are skipped, not counted, and do not stop the counting", async () => {
    const s = running[0]!;
    await js.publish(SERVED_READ_SUBJECT, encoder.encode("not json"));
    await js.publish(SERVED_READ_SUBJECT, encoder.encode(JSON.stringify({ route: "no-slash", tier: "free_key", at: new Date().toISOString() })));
    await js.publish(SERVED_READ_SUBJECT, encoder.encode(JSON.stringify({ route: "/api/board/regime", tier: "gold", at: new Date().toISOString() })));
    await publishReads(10);
    await countsSettle(s);
    expect(Object.keys(await totals())).toEqual(expect.arrayContaining([...ROUTES]));
    expect(Object.keys(await totals())).toHaveLength(3);
  });

  it("messages presented again at or before the position are never counted twice", async () => {
    const s = running[0]!;
    const created = (await (await nc.jetstreamManager()).streams.info(SERVED_READS_STREAM)).created;
    const last = await s.ledger.position();
    const replay = Array.from({ length: 50 }, (_, i) => ({ seq: last - i, route: "/api/board/regime", count: 1 }));
    expect(await s.ledger.commit(created, replay)).toMatchObject({ counted: 0, lastSeq: last });
    expect(await totals()).toEqual(expected);
    expect(await s.ledger.position()).toBe(last);
  });

  it("stopped mid-stream and restarted, it counts what was published meanwhile, once", async () => {
    await publishReads(700, 1);
    await stopAll(); // probably mid-way through the 700: what was read is committed, the rest waits in the stream
    await publishReads(300, 2);
    const s = await startOne();
    await countsSettle(s);
  });

  it("two replicas read the same stream and every read still counts once", async () => {
    const a = running[0]!;
    await startOne();
    await publishReads(1500, 1);
    await countsSettle(a);
    await stopAll();
  });

  it("a stream made anew is read from its start", async () => {
    const s = await startOne();
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(SERVED_READS_STREAM);
    await ensureBusStreams(nc);
    await publishReads(20);
    await countsSettle(s);
    expect(await streamLastSeq()).toBe(20);
  });
});
