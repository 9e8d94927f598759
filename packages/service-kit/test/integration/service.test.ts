import { busEndpoint } from "@board/proto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { BusError } from "../../src/errors.js";
import { createLogger } from "../../src/log.js";
import { createMetrics } from "../../src/metrics.js";
import { request } from "../../src/request.js";
import { addBusService, bind } from "../../src/service.js";
import { testBusOptions } from "../../src/testing/inject.js";

// A throwaway service under the metering name with its own test-only endpoints.
const Echo = busEndpoint("metering", "test_echo", z.object({ n: z.number() }), z.object({ n: z.number() }));
const Boom = busEndpoint("metering", "test_boom", z.object({}), z.object({ ok: z.boolean() }));
const Refuse = busEndpoint("metering", "test_refuse", z.object({}), z.object({ ok: z.boolean() }));
const Slow = busEndpoint("metering", "test_slow", z.object({}), z.object({ ok: z.boolean() }));
const Nobody = busEndpoint("payments", "test_nobody", z.object({}), z.object({}));

let nc: NatsConnection;
const log = createLogger("metering", "silent", "test");

beforeAll(async () => {
  nc = await connect(testBusOptions());
  await addBusService({
    nc,
    name: "metering",
    version: "0.0.0",
    description: "test",
    instance: "service-kit-test",
    log,
    metrics: createMetrics("metering"),
    bindings: [
      bind(Echo, async (req) => ({ n: req.n + 1 })),
      bind(Boom, async () => {
        throw new Error("secret internal detail: password=hunter2");
      }),
      bind(Refuse, async () => {
        throw new BusError("rate_limited");
      }),
      bind(Slow, () => new Promise((r) => setTimeout(() => r({ ok: true }), 1500))),
    ],
  });
});
afterAll(() => nc.close());

describe("bus service runtime", () => {
  it("validates both ends of a request", async () => {
    expect(await request(nc, Echo, { n: 1 })).toEqual({ n: 2 });
    await expect(request(nc, Echo, { n: "x" } as never)).rejects.toMatchObject({ code: "internal_error" });
  });

  it("turns an async failure into a 500 internal_error reply without its text", async () => {
    const raw = await nc.request(Boom.subject, new TextEncoder().encode("{}"));
    expect(raw.headers?.get("Nats-Service-Error-Code")).toBe("500");
    expect(raw.headers?.get("Nats-Service-Error")).toBe("internal_error");
    expect(new TextDecoder().decode(raw.data)).not.toContain("hunter2");
    await expect(request(nc, Boom, {})).rejects.toMatchObject({ status: 500, code: "internal_error" });
  });

  it("carries a BusError's status and reason code", async () => {
    await expect(request(nc, Refuse, {})).rejects.toMatchObject({ status: 429, code: "rate_limited" });
  });

  it("maps no responders to 503 and a timeout to 504", async () => {
    await expect(request(nc, Nobody, {})).rejects.toMatchObject({ status: 503, code: "service_unavailable" });
    await expect(request(nc, Slow, {}, { timeoutMs: 200 })).rejects.toMatchObject({ status: 504, code: "upstream_timeout" });
  });

  it("answers a request that is not JSON with 400 invalid_request", async () => {
    const raw = await nc.request(Echo.subject, new TextEncoder().encode("{nope"));
    expect(raw.headers?.get("Nats-Service-Error-Code")).toBe("400");
    expect(raw.headers?.get("Nats-Service-Error")).toBe("invalid_request");
  });
});
