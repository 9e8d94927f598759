import { randomBytes } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReplyMux } from "../../src/reply-mux.js";
import { testBusOptions } from "../../src/testing/inject.js";

let nc: NatsConnection;
let responder: NatsConnection;
const subject = `mux-test.${randomBytes(4).toString("hex")}`;
const enc = new TextEncoder();
const dec = new TextDecoder();

beforeAll(async () => {
  nc = await connect(testBusOptions());
  responder = await connect(testBusOptions());
  // Echoes after the delay the request asks for, so replies come back out of order.
  responder.subscribe(`${subject}.echo`, {
    callback: (_err, msg) => {
      const delay = Number(dec.decode(msg.data).split(":")[1] ?? 0);
      setTimeout(() => msg.respond(msg.data), delay);
    },
  });
  await responder.flush();
});
afterAll(async () => {
  await nc?.close();
  await responder?.close();
});

describe("ReplyMux", () => {
  it("gives each request its own reply, whatever order the replies come in", async () => {
    const mux = new ReplyMux(nc);
    const asks = Array.from({ length: 200 }, (_, i) => `${i}:${(i * 7) % 20}`);
    const replies = await Promise.all(asks.map((a) => mux.request(`${subject}.echo`, enc.encode(a), 2000)));
    expect(replies.map((m) => dec.decode(m.data))).toEqual(asks);
  });

  it("answers no responders as a 503 at once", async () => {
    const started = performance.now();
    await expect(new ReplyMux(nc).request(`${subject}.nobody`, enc.encode("x"), 2000)).rejects.toMatchObject({ code: "service_unavailable", status: 503 });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("times out as a 504, and a reply arriving later is dropped without harm", async () => {
    const mux = new ReplyMux(nc);
    await expect(mux.request(`${subject}.echo`, enc.encode("late:300"), 100)).rejects.toMatchObject({ code: "upstream_timeout", status: 504 });
    await new Promise((r) => setTimeout(r, 400));
    expect(dec.decode((await mux.request(`${subject}.echo`, enc.encode("next:0"), 1000)).data)).toBe("next:0");
  });

  it("refuses at once on a closed connection (503)", async () => {
    const closed = await connect(testBusOptions());
    const mux = new ReplyMux(closed);
    await closed.close();
    await expect(mux.request(`${subject}.echo`, enc.encode("x:0"), 1000)).rejects.toMatchObject({ code: "service_unavailable", status: 503 });
  });
});
