import { randomBytes } from "node:crypto";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { identityLicenseIssue, meteringReadsServed, SERVED_READS_STREAM, type ServiceName } from "@board/proto";
import { ensureBusStreams, request, type Histogram } from "@board/service-kit";
import { busEnv, deleteSnapshotStream, fixtureSnapshot, freePort, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BoardEnv } from "../../../board/src/env.js";
import { startBoard, type BoardService } from "../../../board/src/start.js";
import { IdentityEnv } from "../../../identity/src/env.js";
import { startIdentity, type IdentityService } from "../../../identity/src/start.js";
import { MeteringEnv } from "../../../metering/src/env.js";
import { startMetering, type MeteringService } from "../../../metering/src/start.js";
import { GatewayEnv } from "../../src/env.js";
import { startGateway, type GatewayService } from "../../src/start.js";

// A read a principal's tier covers (licenses, bearers, free keys) is served off express's
// request path, with its count and its board read sent together and the kept view bytes sent
// without a copy. Watched here against the real peers on the real bus: what is served, what
// metering counts, and the bytes on the wire.

/** A principal's burst: 20 at once, one more every 2 s, so a flood's outcome is exact. */
const BURST = { capacity: 20, per_second: 0.5 };
const REGIME = "/api/board/regime";
const BOARD = "/api/board/agent";

const infra = testInfra();
let nc: NatsConnection;
let db: TestDatabase;
let metering: MeteringService;
let identity: IdentityService;
let board: BoardService | null = null;
let gateway: GatewayService;
let base = "";

const common = (service: ServiceName) => ({ ...busEnv(service), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "error" });
const publish = (snapshot: unknown) => nc.jetstream().publish("board.snapshots.v1", new TextEncoder().encode(JSON.stringify(snapshot)));

async function until(cond: () => Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The board serves the board of `asofDaily` (asked anonymously: no principal's burst is spent). */
const untilServing = (asofDaily: string) =>
  until(async () => {
    const r = await fetch(`${base}/api/board/status`);
    return r.status === 200 && ((await r.json()) as { asof_daily: string }).asof_daily === asofDaily;
  });

/** A GET as it crossed the wire: no decompression, the body's bytes as sent. */
function get(path: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

const newLicense = async () => (await request(nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "gateway test" }, { timeoutMs: 5000 })).key;

async function newFreeKey(): Promise<string> {
  const res = await fetch(`${base}/api/key`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: `${randomBytes(6).toString("hex")}@example.com` }) });
  return ((await res.json()) as { key: string }).key;
}

const servedOf = async (route: string) => (await request(nc, meteringReadsServed, {})).reads_served[route] ?? 0;

/** Metering's count of `route` reaches `expected` and stays there (nothing counted twice a moment later). */
async function countSettles(route: string, expected: number) {
  await until(async () => (await servedOf(route)) >= expected);
  await new Promise((r) => setTimeout(r, 500));
  expect(await servedOf(route)).toBe(expected);
}

/** A view's JSON without its per-read freshness block. */
const fixedPart = (json: Buffer) => {
  const { freshness, ...rest } = JSON.parse(json.toString("utf8")) as { freshness: unknown };
  expect(freshness).toBeTruthy();
  return rest;
};

beforeAll(async () => {
  nc = await connect(testBusOptions());
  await deleteSnapshotStream(nc);
  // This file counts its own served reads.
  await (await nc.jetstreamManager()).streams.delete(SERVED_READS_STREAM).catch(() => false);
  // The deploy step: metering uses the stream, never makes it.
  await ensureBusStreams(nc);
  db = await freshDatabase(infra.databaseUrl);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  metering = await startMetering(
    MeteringEnv.parse({ ...common("metering"), BURST_CAPACITY: BURST.capacity, BURST_PER_SECOND: BURST.per_second, ANON_BURST_CAPACITY: "100000", ANON_BURST_PER_SECOND: "100000", READS_BATCH_WAIT_MS: "50" }),
  );
  identity = await startIdentity(IdentityEnv.parse({ ...common("identity"), IDENTITY_SECRET: randomBytes(32).toString("base64url"), PUBLIC_BASE_URL: base }));
  gateway = await startGateway(GatewayEnv.parse({ ...common("gateway"), PORT: port, HOST: "127.0.0.1", BUS_TIMEOUT_MS: 2000, PUBLIC_BASE_URL: base }));
  board = await startBoard(BoardEnv.parse(common("board")));
  await publish(fixtureSnapshot({ asofDaily: "2026-11-19", computedAt: "2026-11-19T13:00:00-08:00", seed: 1 }));
  await publish(fixtureSnapshot({ asofDaily: "2026-11-20", computedAt: "2026-11-20T09:55:00-08:00", seed: 2, intraday: true }));
  await untilServing("2026-11-20");
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await board?.stop();
  await identity?.stop();
  await metering?.stop();
  await nc?.close();
  await db?.drop();
});

describe("a read a principal's tier covers", () => {
  it("serves and counts exactly the licensed reads metering grants, and none it refuses", async () => {
    const license = await newLicense();
    const before = await servedOf(REGIME);
    const flood = await Promise.all(Array.from({ length: 2 * BURST.capacity }, () => get(REGIME, { "x-license-key": license })));
    const served = flood.filter((r) => r.status === 200);
    const limited = flood.filter((r) => r.status === 429);
    expect(served.length + limited.length).toBe(flood.length);
    // The bucket's 20, and at most the one or two it refilled meanwhile.
    expect(served.length).toBeGreaterThanOrEqual(BURST.capacity);
    expect(served.length).toBeLessThanOrEqual(BURST.capacity + 2);
    for (const r of served) {
      expect(r.headers["x-board-tier"]).toBe("scanner_license");
      expect(Number(r.headers["content-length"])).toBe(r.body.length);
      expect(fixedPart(r.body)).toEqual(fixedPart(served[0]!.body));
    }
    for (const r of limited) {
      expect(r.headers["retry-after"]).toBeTruthy();
      expect((JSON.parse(r.body.toString()) as { error: { code: string } }).error.code).toBe("burst_limited");
    }
    await countSettles(REGIME, before + served.length);

    // Every one of them observed under its route, the refusals by their code.
    const histogram = gateway.runtime.metrics.registry.getSingleMetric("http_request_duration_seconds") as Histogram<"route" | "method" | "status_class">;
    const durations = await histogram.get();
    const count = (statusClass: string) =>
      durations.values.find((v) => v.metricName === "http_request_duration_seconds_count" && v.labels.route === REGIME && v.labels.status_class === statusClass)?.value ?? 0;
    expect(count("2xx")).toBeGreaterThanOrEqual(served.length);
    expect(count("4xx")).toBeGreaterThanOrEqual(limited.length);
    const errors = await gateway.runtime.metrics.errors.get();
    expect(errors.values.find((v) => v.labels.code === "burst_limited")?.value ?? 0).toBeGreaterThanOrEqual(limited.length);
  });

  it("gives back a free-tier read's count when the board cannot serve it, and counts no read it did not serve", async () => {
    const key = await newFreeKey();
    const license = await newLicense();
    const before = await servedOf(REGIME);
    const first = await get(REGIME, { "x-board-key": key });
    expect(first.status).toBe(200);
    expect((JSON.parse(first.body.toString()) as { tier: { used_today: number } }).tier.used_today).toBe(1);

    await board!.stop();
    board = null;
    for (const headers of [{ "x-board-key": key }, { "x-license-key": license }] as Record<string, string>[]) {
      const down = await get(REGIME, headers);
      expect(down.status).toBe(503);
      expect((JSON.parse(down.body.toString()) as { error: { code: string } }).error.code).toBe("service_unavailable");
    }

    board = await startBoard(BoardEnv.parse(common("board")));
    await untilServing("2026-11-20");
    const next = await get(REGIME, { "x-board-key": key });
    expect(next.status).toBe(200);
    // The refunded read is not counted against the day.
    expect((JSON.parse(next.body.toString()) as { tier: { used_today: number } }).tier.used_today).toBe(2);
    expect(next.headers["ratelimit-remaining"]).toBe("23");
    await countSettles(REGIME, before + 2);
  });

  it("sends the kept bytes and this read's freshness: the board's own body, plain and gzip, on every spelling of the path", async () => {
    const license = await newLicense();
    // The first read carries the whole view over the bus; the next ones are spliced from the kept bytes.
    const plain = [];
    for (const path of [BOARD, BOARD, `${BOARD}/`]) plain.push(await get(path, { "x-license-key": license }));
    for (const r of plain) {
      expect(r.status).toBe(200);
      expect(r.headers["content-encoding"]).toBeUndefined();
      expect(Number(r.headers["content-length"])).toBe(r.body.length);
      expect(r.headers.etag).toBe(plain[0]!.headers.etag);
      expect(fixedPart(r.body)).toEqual(fixedPart(plain[0]!.body));
    }
    const zipped = [];
    for (const path of [BOARD, BOARD, `${BOARD}/`]) zipped.push(await get(path, { "x-license-key": license, "accept-encoding": "gzip" }));
    for (const r of zipped) {
      expect(r.status).toBe(200);
      expect(r.headers["content-encoding"]).toBe("gzip");
      expect(Number(r.headers["content-length"])).toBe(r.body.length);
      expect(fixedPart(gunzipSync(r.body))).toEqual(fixedPart(plain[0]!.body));
    }
  });

  it("serves a newly published board at once: the kept bytes of the last one are not served again", async () => {
    const license = await newLicense();
    const old = await get(BOARD, { "x-license-key": license, "accept-encoding": "gzip" });
    expect(old.status).toBe(200);
    await publish(fixtureSnapshot({ asofDaily: "2026-11-23", computedAt: "2026-11-23T09:55:00-08:00", seed: 3, intraday: true }));
    await untilServing("2026-11-23");
    for (const encoding of ["gzip", "identity"]) {
      const now = await get(BOARD, { "x-license-key": license, "accept-encoding": encoding });
      expect(now.status).toBe(200);
      expect(now.headers.etag).not.toBe(old.headers.etag);
      expect(Number(now.headers["content-length"])).toBe(now.body.length);
      const body = fixedPart(encoding === "gzip" ? gunzipSync(now.body) : now.body) as { asof_daily: string; computed_at: string };
      expect(body.asof_daily).toBe("2026-11-23");
    }
  });
});
