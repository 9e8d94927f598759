import { BusError, createLogger } from "@board/service-kit";
import { describe, expect, it } from "vitest";
import { BurstLimiter } from "../../src/burst/burst-limiter.js";
import { BurstOwners } from "../../src/burst/owners.js";
import { SharedBurst, type BurstTake, type SendTakes } from "../../src/burst/shared-burst.js";
import type { Take } from "../../src/burst/token-bucket.js";

const log = createLogger("metering", "silent", "test");
const LIMIT = { capacity: 20, per_second: 10 };
const IDS = ["a", "b", "c"];

/**
 * Replicas wired to each other in memory: `send` calls the owner's `serve`, unless the test
 * made that owner unreachable (a 503, as NATS answers for a member that has gone) or wrong.
 */
function cluster(ids = IDS) {
  const clock = { now: 0 };
  const down = new Set<string>();
  /** Owners that are stuck: no answer in time (504). */
  const stuck = new Set<string>();
  const wrong = new Set<string>();
  const sent: { from: string; to: string; takes: number }[] = [];
  const replicas = new Map<string, { burst: SharedBurst; owners: BurstOwners; limiter: BurstLimiter }>();
  for (const id of ids) {
    const owners = new BurstOwners(id, 3000);
    for (const peer of ids) owners.heard(peer, 0);
    const limiter = new BurstLimiter(LIMIT, 1000);
    const send: SendTakes = async (owner, takes: BurstTake[]) => {
      sent.push({ from: id, to: owner, takes: takes.length });
      await Promise.resolve();
      if (down.has(owner)) throw new BusError("service_unavailable", 503);
      if (stuck.has(owner)) throw new BusError("upstream_timeout", 504);
      if (wrong.has(owner)) return [];
      return replicas.get(owner)!.burst.serve(takes);
    };
    const burst = new SharedBurst({
      owners,
      limiters: { principal: limiter, address: new BurstLimiter(LIMIT, 1000) },
      now: () => clock.now,
      monotonic: () => clock.now,
      send,
      log,
      batchMax: 500,
    });
    replicas.set(id, { burst, owners, limiter });
  }
  const at = (id: string) => replicas.get(id)!;
  /** `n` takes of `key` at once, spread round-robin over the replicas (as a queue group spreads them). */
  const flood = async (key: string, n: number, via = ids): Promise<Take[]> =>
    Promise.all(Array.from({ length: n }, (_, i) => at(via[i % via.length]!).burst.take("principal", key)));
  return { clock, down, stuck, wrong, sent, at, flood };
}

const granted = (ts: Take[]) => ts.filter((t) => t.ok).length;

describe("shared burst (each key spent in the replica that owns it)", () => {
  it("alone, a replica answers from its own bucket without sending anything", async () => {
    const c = cluster(["a"]);
    const results = await c.flood("license:solo", 30);
    expect(granted(results)).toBe(LIMIT.capacity);
    expect(c.sent).toEqual([]);
    expect(c.at("a").burst.counts).toMatchObject({ local: 30, forwarded: 0, fallback: 0 });
  });

  it("over three replicas a principal gets exactly its documented burst, not three times it", async () => {
    const c = cluster();
    const results = await c.flood("license:hot", 60);
    expect(granted(results)).toBe(LIMIT.capacity);
    const refused = results.find((t) => !t.ok);
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 1 });
    // The bucket refills at its rate on the owner's clock, whichever replica is asked.
    c.clock.now = 1000;
    expect(granted(await c.flood("license:hot", 60))).toBe(LIMIT.per_second);
  });

  it("takes for one owner that arrive in the same turn go as one message", async () => {
    const c = cluster();
    const owner = c.at("a").owners.ownerOf("license:batched");
    const via = IDS.find((id) => id !== owner)!;
    await c.flood("license:batched", 25, [via]);
    expect(c.sent).toEqual([{ from: via, to: owner, takes: 25 }]);
    expect(c.at(via).burst.counts).toMatchObject({ forwarded: 25, batches: 1 });
  });

  it("an owner that has gone is suspected: its keys move to the next owner at once, and no take waits on it again", async () => {
    const c = cluster();
    const key = "license:orphan";
    const owner = c.at("a").owners.ownerOf(key);
    const via = IDS.find((id) => id !== owner)!;
    c.down.add(owner);
    const results = await c.flood(key, 30, [via]);
    expect(c.at(via).owners.members).not.toContain(owner);
    // One bucket still: the new owner's (fresh, so the key's burst starts over once: the tolerance).
    expect(granted(results)).toBe(LIMIT.capacity);
    c.sent.length = 0;
    await c.flood(key, 5, [via]);
    expect(c.sent.every((s) => s.to !== owner)).toBe(true);
  });

  it("an owner that does not answer in time is suspected the same way", async () => {
    const c = cluster();
    const key = "license:stuck";
    const owner = c.at("a").owners.ownerOf(key);
    const via = IDS.find((id) => id !== owner)!;
    c.stuck.add(owner);
    expect(granted(await c.flood(key, 30, [via]))).toBe(LIMIT.capacity);
    expect(c.at(via).owners.members).not.toContain(owner);
    expect(c.at(via).burst.counts.fallback).toBe(0);
  });

  it("when the next owner fails too, the take is answered from this replica's own bucket", async () => {
    const c = cluster();
    const key = "license:stranded";
    const via = "a";
    for (const id of IDS) if (id !== via) c.down.add(id);
    const results = await c.flood(key, 30, [via]);
    expect(granted(results)).toBe(LIMIT.capacity);
    const counts = c.at(via).burst.counts;
    expect(counts.fallback + counts.local).toBe(30);
    expect(c.at(via).owners.members).toEqual([via]);
  });

  it("an owner answering wrongly stays a member; its takes are answered here", async () => {
    const c = cluster();
    const key = "license:garbled";
    const owner = c.at("a").owners.ownerOf(key);
    const via = IDS.find((id) => id !== owner)!;
    c.wrong.add(owner);
    const results = await c.flood(key, 3, [via]);
    expect(results.every((t) => t.ok)).toBe(true);
    expect(c.at(via).burst.counts.fallback).toBe(3);
    expect(c.at(via).owners.members).toContain(owner);
  });
});
