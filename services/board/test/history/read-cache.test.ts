import { describe, expect, it } from "vitest";
import { HistoryReadCache } from "../../src/history/read-cache.js";
import type { PublishedView } from "../../src/publication.js";

/** A made read of `bytes` rendered bytes (prefix and gzip head split evenly). */
const made = (name: string, bytes: number) =>
  ({ name, rendered: { prefix: Buffer.alloc(bytes / 2), gzip: { head: Buffer.alloc(bytes / 2), crc: 0, size: 0 }, hash: name, etag: name } }) as unknown as PublishedView;

describe("HistoryReadCache", () => {
  it("makes a read once per board and parameters, whatever order the parameters came in", async () => {
    const cache = new HistoryReadCache(1000);
    let makes = 0;
    const make = async () => made(`m${++makes}`, 100);
    const a = await cache.get(HistoryReadCache.key("board1", "name-history", { sym: "AAPL", days: "20" }), make);
    const b = await cache.get(HistoryReadCache.key("board1", "name-history", { days: "20", sym: "AAPL" }), make);
    expect(b).toBe(a);
    await cache.get(HistoryReadCache.key("board2", "name-history", { sym: "AAPL", days: "20" }), make);
    await cache.get(HistoryReadCache.key("board1", "name-history", { sym: "MSFT", days: "20" }), make);
    expect(makes).toBe(3);
    expect(cache.size).toEqual({ reads: 3, bytes: 300 });
  });

  it("lets concurrent reads of the same wait for the one being made", async () => {
    const cache = new HistoryReadCache(1000);
    let makes = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const make = async () => {
      makes++;
      await gate;
      return made("x", 10);
    };
    const key = HistoryReadCache.key("b", "changes", { since: "h" });
    const reads = [cache.get(key, make), cache.get(key, make), cache.get(key, make)];
    release();
    const [first, ...rest] = await Promise.all(reads);
    expect(makes).toBe(1);
    for (const r of rest) expect(r).toBe(first);
  });

  it("keeps no refusal: the next read tries again", async () => {
    const cache = new HistoryReadCache(1000);
    const key = HistoryReadCache.key("b", "asof", { date: "2026-11-20" });
    await expect(cache.get(key, () => Promise.reject(new Error("session_not_committed")))).rejects.toThrow("session_not_committed");
    expect(cache.size.reads).toBe(0);
    expect(await cache.get(key, async () => made("ok", 10))).toMatchObject({ name: "ok" });
  });

  it("drops the least recently read past its bytes, and keeps no read larger than all of them", async () => {
    const cache = new HistoryReadCache(300);
    const key = (n: number) => HistoryReadCache.key("b", "regime-history", { days: String(n) });
    for (const n of [1, 2, 3]) await cache.get(key(n), async () => made(`r${n}`, 100));
    // Read 1 again: 2 is now the least recently read.
    await cache.get(key(1), async () => made("again", 100));
    await cache.get(key(4), async () => made("r4", 100));
    expect(cache.size).toEqual({ reads: 3, bytes: 300 });
    let remade = 0;
    await cache.get(key(2), async () => (remade++, made("r2b", 100)));
    await cache.get(key(1), async () => (remade++, made("r1b", 100)));
    expect(remade).toBe(1);
    await cache.get(key(9), async () => made("huge", 400));
    expect(cache.size.bytes).toBeLessThanOrEqual(300);
  });
});
