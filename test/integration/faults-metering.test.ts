import { identityLicenseIssue } from "@board/proto";
import { request } from "@board/service-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MeteringEnv } from "../../services/metering/src/env.js";
import { startMetering } from "../../services/metering/src/start.js";
import { TcpProxy } from "./fault-proxy.js";
import { Stack } from "./harness.js";

/**
 * Security review finding 3 (f): metering that stops answering. Metering reaches the bus
 * through a proxy that freezes its connection: it stays subscribed, and every burst check sent
 * to it waits. Keyed and paid work fails closed (503 service_unavailable, Retry-After), after
 * the bus timeout; a free read without a credential still passes after 250 ms (the documented,
 * bounded fail-open: a board read, no lookup and no claim).
 */
const stack = new Stack();
let proxy: TcpProxy;
let license = "";

beforeAll(async () => {
  await stack.start({ gateway: { BUS_TIMEOUT_MS: 1000 } });
  await stack.startBoard();
  await stack.publishTwoDays();
  await stack.untilServing();
  ({ key: license } = await request(stack.nc, identityLicenseIssue, { kind: "scanner", period: "monthly", holder: "faults-metering test" }, { timeoutMs: 5000 }));
  // This stack's metering again, its bus connection through the proxy.
  await stack.metering?.stop();
  const bus = new URL(stack.natsUrl);
  proxy = new TcpProxy({ host: bus.hostname, port: Number(bus.port || 4222) });
  await proxy.listen();
  const through = new URL(stack.natsUrl);
  through.hostname = "127.0.0.1";
  through.port = String(proxy.port);
  stack.metering = await startMetering(
    MeteringEnv.parse({ ...stack.busEnv("metering"), NATS_URL: through.toString(), DATABASE_URL: stack.databaseUrl, HEALTH_PORT: 0, LOG_LEVEL: "warn", ANON_BURST_CAPACITY: "100000", ANON_BURST_PER_SECOND: "100000" }),
  );
  // Every kind of read passes while metering answers.
  expect((await fetch(`${stack.base}/api/board/regime`, { headers: { "x-license-key": license } })).status).toBe(200);
}, 90_000);

afterAll(async () => {
  proxy?.restore();
  await stack.stop();
  await proxy?.close();
});

describe("metering frozen", () => {
  it("a licensed read fails closed: 503 service_unavailable with Retry-After, not served unchecked", async () => {
    proxy.freeze();
    try {
      const res = await fetch(`${stack.base}/api/board/regime`, { headers: { "x-license-key": license } });
      expect(res.status).toBe(503);
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");
      // A payment is refused the same way before payments is asked anything.
      const paid = await fetch(`${stack.base}/api/board/regime`, { headers: { "payment-signature": Buffer.from("{}").toString("base64") } });
      expect(paid.status).toBe(503);
      expect(paid.headers.get("retry-after")).not.toBeNull();
      await paid.body?.cancel();
      // The token endpoint too.
      const token = await fetch(`${stack.base}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=client_credentials&client_id=x&client_secret=y",
      });
      expect(token.status).toBe(503);
      await token.body?.cancel();
      // A free read without a credential passes after the 250 ms burst timeout (bounded fail-open).
      const started = Date.now();
      const free = await fetch(`${stack.base}/api/board/free`);
      expect(free.status).toBe(200);
      await free.body?.cancel();
      expect(Date.now() - started).toBeLessThan(900);
    } finally {
      proxy.restore();
    }
  });
});
