import { randomBytes } from "node:crypto";
import { PingReply, pingEndpoint, SERVICE_NAMES, type ServiceName } from "@board/proto";
import { request, type Runtime } from "@board/service-kit";
import { busEnv, freshDatabase, testBusOptions, testInfra, type TestDatabase } from "@board/service-kit/testing";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IdentityEnv } from "../../services/identity/src/env.js";
import { startIdentity } from "../../services/identity/src/start.js";
import { MeteringEnv } from "../../services/metering/src/env.js";
import { startMetering } from "../../services/metering/src/start.js";
import { PaymentsEnv } from "../../services/payments/src/env.js";
import { startPayments } from "../../services/payments/src/start.js";

const infra = testInfra();
let nc: NatsConnection;
let db: TestDatabase;
const running: Pick<Runtime<Record<string, unknown>>, "service" | "instance" | "health" | "stop">[] = [];

beforeAll(async () => {
  nc = await connect(testBusOptions());
  db = await freshDatabase(infra.databaseUrl);
  const common = (service: ServiceName) => ({ ...busEnv(service), DATABASE_URL: db.url, HEALTH_PORT: 0, LOG_LEVEL: "warn" });
  running.push((await startIdentity(IdentityEnv.parse({ ...common("identity"), IDENTITY_SECRET: randomBytes(32).toString("base64url") }))).runtime);
  running.push((await startMetering(MeteringEnv.parse(common("metering")))).runtime);
  running.push((await startPayments(PaymentsEnv.parse(common("payments")))).runtime);
});

afterAll(async () => {
  for (const rt of running) await rt.stop();
  await nc.close();
  await db.drop();
});

describe("skeleton services", () => {
  it("answer their ping with a reply valid against proto", async () => {
    for (const rt of running) {
      const reply = await request(nc, pingEndpoint(rt.service), {});
      expect(PingReply.parse(reply).service).toBe(rt.service);
    }
  });

  it("register with the services API: $SRV discovery and stats list them with their queue group", async () => {
    const client = nc.services.client();
    const infos = [];
    for await (const info of await client.info()) infos.push(info);
    for (const rt of running) {
      const info = infos.find((i) => i.name === rt.service && i.metadata?.instance === rt.instance);
      expect(info, rt.service).toBeDefined();
      expect(info!.endpoints.map((e) => e.subject)).toContain(`${rt.service}.v1.ping`);
      expect(info!.endpoints.every((e) => e.queue_group === "q")).toBe(true);
    }
    const stats = [];
    for await (const s of await client.stats("identity")) stats.push(s);
    expect(stats.length).toBeGreaterThan(0);
  });

  it("report alive, ready and metrics on their health port", async () => {
    for (const rt of running) {
      const base = `http://127.0.0.1:${rt.health.port}`;
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as Record<string, unknown>;
      if (rt.service === "payments") {
        // payments also says which rails it offers (none configured here) and whether money is real.
        expect(body).toMatchObject({ status: "ready", checks: { nats: "ok", database: "ok", endpoints: "ok" }, mode: "production" });
        expect(body.rails).toEqual({ base: "off", solana: "off", algorand: "off", batched: "off", mpp: "off" });
      } else expect(body).toEqual({ status: "ready", checks: { nats: "ok", database: "ok" } });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain("bus_handled_seconds");
      expect(metrics).toContain(`service="${rt.service}"`);
    }
  });

  it("every service name of proto is one the launcher starts", () => {
    expect(SERVICE_NAMES).toEqual(["gateway", "identity", "metering", "payments", "board", "scanner-ingest"]);
  });
});
