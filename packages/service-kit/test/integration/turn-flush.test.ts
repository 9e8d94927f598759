import { randomBytes } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReplyMux } from "../../src/reply-mux.js";
import { testBusOptions } from "../../src/testing/inject.js";
import { flushOncePerTurn } from "../../src/turn-flush.js";

const subject = `turn-flush-test.${randomBytes(4).toString("hex")}`;
const enc = new TextEncoder();
const dec = new TextDecoder();
let turned: NatsConnection;
let plain: NatsConnection;
let listener: NatsConnection;

/** Counts the socket writes a connection makes (its current transport's send, as nats.js 2.29 names it). */
function countWrites(nc: NatsConnection): () => number {
  const transport = (nc as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol.transport;
  let writes = 0;
  const send = transport.send.bind(transport);
  transport.send = (frame) => {
    writes++;
    send(frame);
  };
  return () => writes;
}

/** Publishes `count` messages, each from its own microtask of one event-loop turn, as a service's continuations do. */
async function publishAcrossMicrotasks(nc: NatsConnection, to: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await Promise.resolve();
    nc.publish(to, enc.encode(String(i)));
  }
}

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

beforeAll(async () => {
  turned = await connect(testBusOptions());
  plain = await connect(testBusOptions());
  listener = await connect(testBusOptions());
  expect(flushOncePerTurn(turned)).toBe(true);
  listener.subscribe(`${subject}.echo`, { callback: (_err, msg) => msg.respond(msg.data) });
  await listener.flush();
});
afterAll(async () => {
  await turned?.close();
  await plain?.close();
  await listener?.close();
});

describe("flushOncePerTurn", () => {
  it("writes what one turn published in one socket write, where nats.js alone writes once per microtask", async () => {
    const turnedWrites = countWrites(turned);
    const plainWrites = countWrites(plain);
    await publishAcrossMicrotasks(turned, `${subject}.sink`, 20);
    await publishAcrossMicrotasks(plain, `${subject}.sink`, 20);
    await nextTurn();
    expect(turnedWrites()).toBe(1);
    expect(plainWrites()).toBe(20);
  });

  it("delivers every message, in the order published", async () => {
    const got: string[] = [];
    const sub = listener.subscribe(`${subject}.ordered`, { callback: (_err, msg) => got.push(dec.decode(msg.data)) });
    await listener.flush();
    await publishAcrossMicrotasks(turned, `${subject}.ordered`, 50);
    for (let i = 50; i < 100; i++) turned.publish(`${subject}.ordered`, enc.encode(String(i)));
    await turned.flush();
    await listener.flush();
    await nextTurn();
    sub.unsubscribe();
    expect(got).toEqual(Array.from({ length: 100 }, (_, i) => String(i)));
  });

  it("answers requests asked over the connection", async () => {
    const mux = new ReplyMux(turned);
    const asks = Array.from({ length: 100 }, (_, i) => `ask-${i}`);
    const replies = await Promise.all(asks.map((a) => mux.request(`${subject}.echo`, enc.encode(a), 2000)));
    expect(replies.map((m) => dec.decode(m.data))).toEqual(asks);
  });

  it("writes at once, inside the turn, once the client's pending limit is reached", async () => {
    const writes = countWrites(turned);
    turned.publish(`${subject}.sink`, new Uint8Array(64 * 1024));
    expect(writes()).toBe(1);
    await nextTurn();
    expect(writes()).toBe(1);
  });
});
